import type { WalletLimits } from '../../domain/limits';
import { isLiveReservation, walletIdOf, type ClientRecord, type MemberMove, type MemberRecord, type ReservationRecord, type VoucherDefinitionRecord } from '../../domain/model';
import type { FixtureStore } from '../../store/port';
import { FixtureError, type FixtureIssue } from './fixture-error';
import { reservationKey, toClientRecord, toMemberRecord, toReservationRecord, toVoucherDefinitionRecord } from './fixture-records';
import type { Fixture, FixtureReservation } from './fixture-schema';
import type { PlannedMove } from './member-move-steps';
import { planMoves, type Move } from './plan-moves';
import { publishableKeyIssues } from './stored-keys';

/*
 * The plan of a load: every record it writes and every member it moves,
 * read from the store and checked against it before the first write.
 */

/** What one wallet receives from the fixture. */
export interface WalletChange {
  balances: Map<string, number>;
  /** Members whose balance arrives from another wallet (a move), by the wallet they leave. */
  arriving: Map<string, string>;
  reservations: ReservationRecord[];
  /** JSON pointer of each reservation in the fixture, in the same order. */
  paths: string[];
}

/** What a load writes, and the members it moves. */
export interface LoadPlan {
  clients: ClientRecord[];
  members: MemberRecord[];
  voucherDefinitions: VoucherDefinitionRecord[];
  walletChanges: Map<string, WalletChange>;
  moves: Move[];
  /** Moves a load that stopped half-way committed, left to finish (see member-move-steps.ts). */
  unfinished: PlannedMove[];
}

/**
 * Reads what the fixture meets in the store and plans the load; throws
 * `FixtureError` naming every issue found, having written nothing.
 */
export async function planLoad(store: FixtureStore, fixture: Fixture, now: Date, limits: WalletLimits): Promise<LoadPlan> {
  const clients = (fixture.clients ?? []).map(toClientRecord);
  const members = (fixture.members ?? []).map(toMemberRecord);
  const stored = await storedMembers(store, fixture);
  // Where each member named by the fixture will be: the fixture wins over the store.
  const walletOf = new Map<string, string>();
  for (const [id, record] of stored) if (record) walletOf.set(id, record.walletId);
  for (const member of members) walletOf.set(member.correlationId, member.walletId);

  const issues: FixtureIssue[] = await publishableKeyIssues(store, fixture, now);
  const walletChanges = planWalletChanges(fixture, clients, walletOf, now, issues);
  // The moves each wallet the fixture changes records, read with it: most members stay in one of these.
  const recordedMoves = await checkWalletSizes(store, walletChanges, now, limits, issues);
  const { moves, unfinished } = await planMoves(store, members, stored, recordedMoves);
  for (const move of moves) walletChanges.get(move.toWalletId)?.arriving.set(move.correlationId, move.fromWalletId);
  if (issues.length > 0) throw new FixtureError(issues);

  const voucherDefinitions = (fixture.voucherDefinitions ?? []).map(toVoucherDefinitionRecord);
  return { clients, members, voucherDefinitions, walletChanges, moves, unfinished };
}

/** Balances and reservations grouped by the wallet they go to. */
function planWalletChanges(
  fixture: Fixture,
  clients: ClientRecord[],
  walletOf: Map<string, string>,
  now: Date,
  issues: FixtureIssue[],
): Map<string, WalletChange> {
  const changes = new Map<string, WalletChange>();
  const changeOf = (walletId: string): WalletChange => {
    let change = changes.get(walletId);
    if (!change) changes.set(walletId, (change = { balances: new Map(), arriving: new Map(), reservations: [], paths: [] }));
    return change;
  };
  for (const m of fixture.members ?? []) {
    changeOf(walletIdOf(m.correlationId, m.householdId ?? null)).balances.set(m.correlationId, m.pointBalance);
  }
  const clientById = new Map(clients.map((c) => [c.clientId, c]));
  (fixture.reservations ?? []).forEach((r, i) => {
    const path = `/reservations/${i}`;
    const walletId = reservationWallet(r, path, walletOf, issues);
    if (walletId === undefined) return;
    const change = changeOf(walletId);
    change.reservations.push(toReservationRecord(r, clientById.get(r.clientId)?.reservationDurationSeconds, now));
    change.paths.push(path);
  });
  return changes;
}

/**
 * No wallet may end up with more live reservations than the limit: those it
 * keeps from the store plus those the fixture brings. The issue points at the
 * first of the fixture's reservations past the limit. Returns the member
 * moves each wallet records (absent: no such wallet).
 */
async function checkWalletSizes(
  store: FixtureStore,
  changes: Map<string, WalletChange>,
  now: Date,
  limits: WalletLimits,
  issues: FixtureIssue[],
): Promise<Map<string, MemberMove[]>> {
  const limit = limits.maxActiveReservationsPerWallet;
  const recordedMoves = new Map<string, MemberMove[]>();
  for (const [walletId, change] of changes) {
    const incoming = new Set(change.reservations.map(reservationKey));
    const wallet = await store.loadWallet(walletId);
    if (wallet) recordedMoves.set(walletId, wallet.moves ?? []);
    const stored = wallet?.reservations ?? [];
    let live = stored.filter((r) => isLiveReservation(r, now) && !incoming.has(reservationKey(r))).length;
    let firstPast: string | undefined;
    change.reservations.forEach((r, i) => {
      if (!isLiveReservation(r, now)) return;
      live++;
      if (live > limit) firstPast ??= change.paths[i];
    });
    if (firstPast !== undefined) {
      issues.push({
        path: firstPast,
        message: `wallet ${walletId} would hold ${live} live reservations; MAX_ACTIVE_RESERVATIONS_PER_WALLET allows ${limit}`,
      });
    }
  }
  return recordedMoves;
}


/** Stored records of the fixture's members and of every member its reservations name. */
async function storedMembers(store: FixtureStore, fixture: Fixture): Promise<Map<string, MemberRecord | null>> {
  const ids = new Set<string>((fixture.members ?? []).map((m) => m.correlationId));
  for (const r of fixture.reservations ?? []) {
    ids.add(r.correlationId);
    for (const c of r.contributions) ids.add(c.correlationId);
  }
  const stored = new Map<string, MemberRecord | null>();
  // One at a time: a large fixture must not flood the store's connection pool.
  for (const id of ids) stored.set(id, await store.findMember(id));
  return stored;
}

/**
 * The wallet a reservation goes to: its member's. Every contributor must be
 * in that same wallet, or points would be reserved from a balance the wallet
 * does not hold and conservation would break.
 */
function reservationWallet(
  r: FixtureReservation,
  at: string,
  walletOf: Map<string, string>,
  issues: FixtureIssue[],
): string | undefined {
  const walletId = walletOf.get(r.correlationId);
  if (walletId === undefined) {
    issues.push({ path: `${at}/correlationId`, message: unknownMember(r.correlationId) });
  }
  r.contributions.forEach((c, j) => {
    const path = `${at}/contributions/${j}/correlationId`;
    const contributorWallet = walletOf.get(c.correlationId);
    if (contributorWallet === undefined) {
      issues.push({ path, message: unknownMember(c.correlationId) });
    } else if (walletId !== undefined && contributorWallet !== walletId) {
      issues.push({ path, message: `member ${JSON.stringify(c.correlationId)} is not in the wallet of the reservation's member (${walletId})` });
    }
  });
  return walletId;
}

function unknownMember(id: string): string {
  return `unknown member ${JSON.stringify(id)}: neither in this fixture nor in the store`;
}
