import type { Clock } from '../../domain/clock';
import type { WalletLimits } from '../../domain/limits';
import { AppError, reservationError, serviceUnavailable } from '../../domain/errors';
import { withMemberIds } from '../../domain/member-ids';
import { fundsOthers, isFenced, moveOf } from '../../domain/member-move-rules';
import { newAuditEntryId, type AuditEntry, type Contribution, type MemberRecord, type ReservationKey, type ReservationRecord } from '../../domain/model';
import type {
  ReservationContext,
  ReservationService,
  ReservationUpdateRequest,
  ReservationUpdateResponse,
} from '../../domain/services';
import type { ReservationStore } from '../../store/port';
import { documentedAnswerToRefusedBody, redemptionPairProblem } from './body-rules';
import { resolveItems, type ResolvedItems } from './catalogue';
import { fundReservation, splitReturn, subtractShares } from './shares';
import {
  activeCount,
  availableOf,
  loadWalletState,
  membersNamedBy,
  pointBalanceOf,
  reservedToday,
  saveChange,
  type WalletState,
} from './wallet-repository';

export interface ReservationServiceDeps {
  store: ReservationStore;
  clock: Clock;
  walletLimits: WalletLimits;
  /** Compare-and-set attempts before giving up with 503 (each conflict means another request progressed). */
  maxAttempts?: number;
  /** Waits between attempts; injectable so tests need not sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** Told of the points each saved change took into reservations and gave back (metrics). */
  onPointsMoved?: (reserved: number, returned: number) => void;
}

const redeemPrivilege = 'REDEEM';

/** What one attempt decided: the reservation after the change, and each member's share. */
interface Change {
  before: ReservationRecord | null;
  after: ReservationRecord;
  shares: Contribution[];
}

export function createReservationService(deps: ReservationServiceDeps): ReservationService {
  const { store, clock } = deps;
  const maxAttempts = deps.maxAttempts ?? 100;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  return {
    async updateReservation(context, request) {
      // The body's form comes first, and the schema has checked the rest of it.
      const pairProblem = redemptionPairProblem(request);
      if (pairProblem) throw pairProblem;
      if (context.session.identifierType === 'PHONE_NUMBER') throw notEligible();
      // The wallet each attempt read (at most maxAttempts): a failure the log
      // may show is marked with the members they name, a household's
      // co-members among them, whose ids its text may quote; the log shows
      // them only as LOG_MEMBER_IDS says (domain/member-ids.ts). A client's
      // fault (4xx) is answered with its fixed message, never logged. A
      // successful request pays one small array for it.
      const met: WalletState[] = [];
      try {
        return await changeReservation(context, request, met);
      } catch (error) {
        if (error instanceof AppError && error.status < 500) throw error;
        throw withMemberIds(error, met.flatMap(membersNamedBy));
      }
    },

    documentedAnswerToRefusedBody: (body) => documentedAnswerToRefusedBody(store, body),
  };

  /** The change of the reservation, tried until its compare-and-set holds; the wallet each attempt works on goes into `met`. */
  async function changeReservation(context: ReservationContext, request: ReservationUpdateRequest, met: WalletState[]): Promise<ReservationUpdateResponse> {
    const key = keyOf(context);
    const locate = await memberLocator(store, context);
    let items: ResolvedItems | undefined;

    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      // One time for the whole attempt: what is live, the daily cap and the
      // new expiry are all judged at it.
      const now = clock();
      const { member, state } = await locate((walletId, withMember) => loadWalletState(store, walletId, key, now, withMember));
      met.push(state);
      const current = state.current;
      checkToken(current, context, request);
      // Redemption and catalogue data do not change between attempts: resolve once.
      items ??= await resolveItems(store, request);

      const change = current
        ? planUpdate(context, request, current, items, now)
        : planCreation(context, request, member, state, items, now, deps.walletLimits);

      if (isNoOp(change)) return respond(context, member, state, change.after, items, now);

      const entry = auditEntry(context, change, state, now);
      const saved = await saveChange(store, state, change.before, change.after, entry, now);
      if (saved) {
        deps.onPointsMoved?.(sumOf(change.shares, -1), sumOf(change.shares, 1));
        return respond(context, member, saved, change.after, items, now);
      }
      await sleep(Math.floor(Math.random() * Math.min(50, attempt * 2)));
    }
    throw serviceUnavailable();
  }
}

/** Points of the shares going one way: 1, given back; -1, taken. */
function sumOf(shares: Contribution[], sign: 1 | -1): number {
  let sum = 0;
  for (const share of shares) if (share.points * sign > 0) sum += share.points * sign;
  return sum;
}

function notEligible() {
  return reservationError('Account is not eligible for redemption');
}

type LoadState = (walletId: string, withMember: string | undefined) => Promise<WalletState | null>;

/** Wallets one attempt may visit while it follows a member that moves (each step is one read). */
const maxWalletsPerAttempt = 4;

/**
 * Finds the path member and its wallet's state, reading as little as it
 * can: the member read with the session when the process had it, else the
 * member read with the wallet the session names (one command), else the
 * member alone first (sessions that name no wallet). A member that moved
 * to another wallet since is followed there: by its record, or, while an
 * operator's load moves it, by its wallet's record of the move (`left`,
 * written before the member's record changes). A record the process kept
 * (up to 2 s) is read again when the wallet it names does not hold the
 * member's balance, or holds it as arriving. Every attempt reads the
 * wallet again; the member is read once, or twice when the kept one was
 * stale.
 */
async function memberLocator(store: ReservationStore, context: ReservationContext) {
  let member: MemberRecord | null | undefined = context.member;
  let fresh = false;
  if (member === undefined && context.session.walletId === undefined) {
    member = await store.findMember(context.correlationId);
    fresh = true;
  }
  let walletId = member ? member.walletId : context.session.walletId;
  return async (load: LoadState): Promise<{ member: MemberRecord; state: WalletState }> => {
    // Reached through the member's own `left` record: the wallet its move went to, whatever its record says yet.
    let forwarded = false;
    for (let visits = 0; visits < maxWalletsPerAttempt; visits++) {
      if (member === null || walletId === undefined) throw notEligible();
      const state = await load(walletId, member === undefined ? context.correlationId : undefined);
      if (member === undefined) {
        member = state ? (state.member ?? null) : await store.findMember(context.correlationId);
        fresh = true;
      }
      if (member === null) throw notEligible();
      const move = moveOf(state?.moves, member.correlationId);
      if (move?.state === 'left') {
        walletId = move.walletId;
        forwarded = true;
        continue;
      }
      if (!forwarded && member.walletId !== walletId) {
        walletId = member.walletId;
        continue;
      }
      if (!forwarded && !fresh && state && (move?.state === 'arriving' || !holdsBalance(state, member))) {
        member = undefined;
        continue;
      }
      if (!member.eligibleForRedemption) throw notEligible();
      if (!state) throw new Error(`wallet ${walletId} of member ${member.correlationId} is missing`);
      return { member, state };
    }
    // Moved again and again while read: an operator's load at work. Retrying is safe.
    throw serviceUnavailable();
  };
}

function holdsBalance(state: WalletState, member: MemberRecord): boolean {
  return state.balances.some((b) => b.correlationId === member.correlationId);
}

function keyOf(context: ReservationContext): ReservationKey {
  return {
    clientId: context.client.clientId,
    correlationId: context.correlationId,
    reservationToken: context.reservationToken,
  };
}

function checkToken(
  current: ReservationRecord | null,
  context: ReservationContext,
  request: ReservationUpdateRequest,
): void {
  if (!current) {
    if (request.offline !== true) throw reservationError('Reservation Token is invalid');
    return;
  }
  if (current.identifierType !== context.session.identifierType) {
    throw reservationError('Reservation belongs to a different session');
  }
}

function checkTier(context: ReservationContext, amount: number): void {
  const tiers = context.client.redemptionTiers;
  if (tiers && amount !== 0 && !tiers.includes(amount)) throw reservationError('Invalid tier amount');
}

function checkItemsTotal(items: ResolvedItems, amount: number): void {
  if (items.totalPoints > amount) {
    throw reservationError(
      'Total points for catalogue items should be less than or equal to the reservation amount',
    );
  }
}

/** Lowers (or keeps) an existing reservation; the difference goes back to its contributors. */
function planUpdate(
  context: ReservationContext,
  request: ReservationUpdateRequest,
  current: ReservationRecord,
  items: ResolvedItems,
  now: Date,
): Change {
  const amount = request.reservationAmount ?? current.reservationAmount;
  if (request.reservationAmount !== undefined) checkTier(context, amount);
  if (amount > current.reservationAmount) {
    throw reservationError('New reservation amount cannot be greater than existing reservation amount');
  }
  checkItemsTotal(items, amount);

  const shares = splitReturn(current.contributions, current.reservationAmount - amount);
  const after: ReservationRecord = {
    ...current,
    reservationAmount: amount,
    contributions: subtractShares(current.contributions, shares),
    expiresAt: request.extendedExpiry ? extendedExpiry(context, current.expiresAt, now) : current.expiresAt,
  };
  return { before: current, after, shares: shares.filter((s) => s.points > 0) };
}

/** Creates a reservation under an unknown token (offline), funded by the member and, if allowed, its household. */
function planCreation(
  context: ReservationContext,
  request: ReservationUpdateRequest,
  member: MemberRecord,
  state: WalletState,
  items: ResolvedItems,
  now: Date,
  limits: WalletLimits,
): Change {
  const amount = request.reservationAmount ?? items.totalPoints;
  checkTier(context, amount);
  checkItemsTotal(items, amount);
  // An operator's load is moving the member out of this wallet: nothing new
  // may draw on its points here. Its move takes seconds; retrying is safe.
  if (isFenced(moveOf(state.moves, member.correlationId), now)) throw serviceUnavailable();
  checkCap(context, request, state, amount, now);
  if (activeCount(state) >= limits.maxActiveReservationsPerWallet) throw reservationError('Too many active reservations');

  const contributions = fundReservation(
    amount,
    { correlationId: member.correlationId, available: availableOf(state, member.correlationId) },
    canDrawOnHousehold(member) ? otherFunders(state, member, now) : [],
  );
  if (!contributions) throw reservationError('Insufficient points balance');

  const expiresAt = new Date(now.getTime() + context.client.reservationDurationSeconds * 1000);
  const after: ReservationRecord = {
    reservationToken: context.reservationToken,
    clientId: context.client.clientId,
    correlationId: context.correlationId,
    identifierType: context.session.identifierType,
    reservationAmount: amount,
    contributions,
    expiresAt: request.extendedExpiry ? extendedExpiry(context, expiresAt, now) : expiresAt,
    createdAt: now,
    excludedFromCap: request.isExcludedFromCap === true,
  };
  return { before: null, after, shares: contributions.map((c) => ({ ...c, points: -c.points })) };
}

function checkCap(
  context: ReservationContext,
  request: ReservationUpdateRequest,
  state: WalletState,
  amount: number,
  now: Date,
): void {
  const cap = context.client.dailyRedemptionCap;
  if (cap === null || request.isExcludedFromCap === true) return;
  if (reservedToday(state, context.client.clientId, context.correlationId, now) + amount > cap) {
    throw reservationError('Redemption cap exceeded');
  }
}

function canDrawOnHousehold(member: MemberRecord): boolean {
  return member.householdId !== null && member.privileges.includes(redeemPrivilege);
}

function otherFunders(state: WalletState, member: MemberRecord, now: Date) {
  return countedBalances(state, member, now)
    .filter((b) => b.correlationId !== member.correlationId)
    .map((b) => ({ correlationId: b.correlationId, available: availableOf(state, b.correlationId) }));
}

/**
 * The balances that count for the path member: its own, and those of the
 * others but members a load is moving in or out (see `fundsOthers`).
 */
function countedBalances(state: WalletState, member: MemberRecord, now: Date) {
  return state.balances.filter((b) => b.correlationId === member.correlationId || fundsOthers(moveOf(state.moves, b.correlationId), now));
}

/** `now + extendedDurationSeconds`, unless the current expiry is already later. */
function extendedExpiry(context: ReservationContext, current: Date, now: Date): Date {
  const extended = now.getTime() + context.client.extendedDurationSeconds * 1000;
  return new Date(Math.max(current.getTime(), extended));
}

function isNoOp(change: Change): boolean {
  const { before, after } = change;
  return (
    before !== null &&
    before.reservationAmount === after.reservationAmount &&
    before.expiresAt.getTime() === after.expiresAt.getTime()
  );
}

function respond(
  context: ReservationContext,
  member: MemberRecord,
  state: WalletState,
  reservation: ReservationRecord,
  items: ResolvedItems,
  now: Date,
): ReservationUpdateResponse {
  const response: ReservationUpdateResponse = {
    reservationToken: reservation.reservationToken,
    reservationDuration: Math.max(0, Math.floor((reservation.expiresAt.getTime() - now.getTime()) / 1000)),
    availablePointBalance: availableOf(state, member.correlationId),
    pointBalance: pointBalanceOf(state, member.correlationId),
    sessionId: context.session.sessionId,
  };
  if (items.itemLevel) {
    response.redemptionName = items.redemptionName;
    response.catalogueItemsData = items.data;
  }
  if (canDrawOnHousehold(member)) {
    const counted = countedBalances(state, member, now);
    response.household = {
      pointsBalance: counted.reduce((sum, b) => sum + b.pointBalance, 0),
      availablePointsBalance: counted.reduce((sum, b) => sum + availableOf(state, b.correlationId), 0),
    };
  }
  return response;
}

function auditEntry(context: ReservationContext, change: Change, wallet: Pick<WalletState, 'walletId' | 'version'>, now: Date): AuditEntry {
  const snapshot = (r: ReservationRecord) => ({
    reservationAmount: r.reservationAmount,
    contributions: r.contributions,
    expiresAt: r.expiresAt,
  });
  const walletVersion = wallet.version + 1;
  return {
    id: newAuditEntryId(wallet.walletId, walletVersion),
    walletId: wallet.walletId,
    walletVersion,
    at: now,
    action: change.before ? 'UPDATE' : 'CREATE',
    clientId: context.client.clientId,
    sessionId: context.session.sessionId,
    correlationId: context.correlationId,
    reservationToken: context.reservationToken,
    before: change.before ? snapshot(change.before) : null,
    after: snapshot(change.after),
    shares: change.shares,
  };
}
