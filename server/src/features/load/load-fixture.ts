import { systemClock, type Clock } from '../../domain/clock';
import { liveReservationsOf } from '../../domain/member-move-rules';
import type { MemberRecord } from '../../domain/model';
import { defaultWalletLimits, type WalletLimits } from '../../domain/limits';
import { deepCopy } from '../../store/copy';
import type { FixtureStore } from '../../store/port';
import { updateWallet } from '../../store/wallet-update';
import { applyWalletChange } from './apply-wallet-change';
import { checkFixture } from './check-fixture';
import { FixtureError, type FixtureIssue } from './fixture-error';
import type { Fixture } from './fixture-schema';
import { defaultMoveLeaseMs, finishMove, MemberMoveSteps, type RefusedMove } from './member-move-steps';
import { planLoad, type LoadPlan } from './plan-load';
import type { Move } from './plan-moves';
import { newFixtureKeys } from './stored-keys';

/*
 * The loader of fixtures, for `loyalty-admin load` (admin/data.ts) and
 * SEED_FILE (composition.ts). A fixture is read (read-fixture.ts), parsed
 * against its schema (parse-fixture.ts, fixture-schema.ts) and checked on
 * its own (check-fixture.ts); then `loadFixture` plans every write and
 * move against the store (plan-load.ts, plan-moves.ts, stored-keys.ts),
 * fences the moving members, writes, and commits and finishes the moves
 * (member-move-steps.ts), each wallet through its compare-and-set
 * (apply-wallet-change.ts).
 */

export interface LoadOptions {
  /** Told after each wallet written (the bulk of a large fixture): `loyalty-admin load` shows it. */
  onProgress?: (walletsDone: number, wallets: number) => void;
  /** Dates the fences of members being moved, and how long each is held (default: the system clock); the servers judge them by theirs. */
  clock?: Clock;
  /** How long a fence holds unless the load renews it (default one minute): how long a load that died blocks its moving members. */
  moveLeaseMs?: number;
}

/** What a load did to the members it moved. */
export interface LoadReport {
  /** Members moved to another wallet. */
  membersMoved: number;
  /**
   * The longest a member was fenced (its offline creations answered `503`),
   * in ms of the load's clock: from its fence to the decision of its move.
   */
  longestFenceMs: number;
}

/**
 * Loads a fixture through the store port only. Records replace stored records
 * with the same key; balances and reservations go into their wallets through
 * the compare-and-set loop, so loading is safe next to a running server.
 *
 * Everything is read and checked before the first write: a fixture that
 * refers to unknown members, or that moves a member holding live
 * reservations (its own, or its points in another's) in the wallet it would
 * leave, fails without having changed the store. Then the records and the
 * wallets no member moves into are written, then the members move, one
 * destination wallet at a time, each as close to its fence as it can be
 * (member-move-steps.ts): fenced in its old wallet, its balance carried to
 * the new one, the move decided there, its record pointed to the new wallet,
 * the fence gone. So a moving member's creations are `503` for its own move,
 * not for the whole load. A reservation made on a moving member after the
 * check is seen when its turn comes: the load stops there, naming it; the
 * members moved before it have moved, and loading the file again (once the
 * reservation is released) finishes the rest.
 */
export async function loadFixture(
  store: FixtureStore,
  fixture: Fixture,
  now: Date,
  limits: WalletLimits = defaultWalletLimits,
  options: LoadOptions = {},
): Promise<LoadReport> {
  const issues = checkFixture(fixture);
  if (issues.length > 0) throw new FixtureError(issues);
  const plan = await planLoad(store, fixture, now, limits);
  const held = await refusedUpFront(store, plan.moves, now);
  if (held.length > 0) throw new FixtureError(held.map((r) => moveIssue(plan, r)));

  await store.upsertClients(plan.clients);
  await store.upsertApiKeys(await newFixtureKeys(store, fixture, now));
  await store.upsertCatalogueItems(deepCopy(fixture.catalogueItems ?? []));
  await store.upsertRedemptions(deepCopy(fixture.redemptions ?? []));
  await store.upsertVoucherDefinitions(plan.voucherDefinitions);
  for (const move of plan.unfinished) await finishMove(store, move);

  const groups = movesByDestination(plan.moves);
  const progress = progressOf(plan, options);
  // The wallets no member moves into, and the members whose wallet that is: nobody is fenced meanwhile.
  for (const [walletId, change] of plan.walletChanges) {
    if (groups.has(walletId)) continue;
    await updateWallet(store, walletId, (wallet) => applyWalletChange(wallet, change));
    progress();
  }
  await upsertMembers(store, plan.members.filter((m) => !groups.has(m.walletId)));

  const report: LoadReport = { membersMoved: 0, longestFenceMs: 0 };
  for (const [walletId, moves] of groups) {
    const moved = await moveInto(store, plan, walletId, moves, { now, options });
    report.membersMoved += moved.membersMoved;
    report.longestFenceMs = Math.max(report.longestFenceMs, moved.fenceMs);
    progress();
    if (moved.refused.length > 0) throw new FixtureError(moved.refused.map((r) => moveIssue(plan, r, moved.why)));
  }
  return report;
}

/** The moves of the plan by the wallet they go to, in the fixture's order. */
function movesByDestination(moves: readonly Move[]): Map<string, Move[]> {
  const groups = new Map<string, Move[]>();
  for (const move of moves) groups.set(move.toWalletId, [...(groups.get(move.toWalletId) ?? []), move]);
  return groups;
}

/** Counts the wallets written, for `onProgress`. */
function progressOf(plan: LoadPlan, options: LoadOptions): () => void {
  let done = 0;
  return () => options.onProgress?.(++done, plan.walletChanges.size);
}

/**
 * The check before anything is written: the moves whose members own or
 * fund live reservations in the wallets they would leave (one read of each
 * such wallet). Their fences check again when their turn comes.
 */
async function refusedUpFront(store: FixtureStore, moves: readonly Move[], now: Date): Promise<RefusedMove[]> {
  const refused: RefusedMove[] = [];
  for (const move of moves) {
    const wallet = await store.loadWallet(move.fromWalletId);
    const reservationTokens = wallet ? liveReservationsOf(wallet.reservations, move.correlationId, now) : [];
    if (reservationTokens.length > 0) refused.push({ move, reservationTokens });
  }
  return refused;
}

interface MovedInto {
  membersMoved: number;
  fenceMs: number;
  refused: RefusedMove[];
  /** Why a move was refused at its turn, for the message. */
  why?: string;
}

/**
 * The members that move into one wallet: fenced in their old wallets,
 * their balances carried with the new wallet's change, their moves decided
 * in the old wallets, their records (and those of the members already
 * there) pointed to it, then finished. A fence refused stops here with
 * nothing of these moves written; a move refused at its decision (its fence
 * lapsed meanwhile, a load stalled past its lease) is undone alone.
 */
async function moveInto(store: FixtureStore, plan: LoadPlan, walletId: string, moves: Move[], context: { now: Date; options: LoadOptions }): Promise<MovedInto> {
  const clock = context.options.clock ?? systemClock;
  const steps = new MemberMoveSteps(store, moves, { now: context.now, clock, leaseMs: context.options.moveLeaseMs ?? defaultMoveLeaseMs });
  const fencedAt = clock().getTime();
  const refused = await steps.fence();
  if (refused.length > 0) return { membersMoved: 0, fenceMs: 0, refused, why: 'made after the load checked it, before its turn: the members before it moved, the rest did not' };
  await updateWallet(store, walletId, (wallet) => applyWalletChange(wallet, plan.walletChanges.get(walletId)!));
  await steps.renewIfDue();
  const late = await steps.commit();
  const fenceMs = clock().getTime() - fencedAt;
  const stayed = new Set(late.map((r) => r.move.correlationId));
  await upsertMembers(store, plan.members.filter((m) => m.walletId === walletId && !stayed.has(m.correlationId)));
  await steps.finish();
  return { membersMoved: moves.length - late.length, fenceMs, refused: late, why: 'made while its move ran, after its fence lapsed: this member stays where it was' };
}

/** Writes the members' records, if there are any: none costs no command. */
async function upsertMembers(store: FixtureStore, members: MemberRecord[]): Promise<void> {
  if (members.length > 0) await store.upsertMembers(members);
}

/** The issue of a move refused because the member holds live reservations where it is. */
function moveIssue(plan: LoadPlan, refused: RefusedMove, why?: string): FixtureIssue {
  const { move, reservationTokens } = refused;
  const index = plan.moves.find((m) => m.correlationId === move.correlationId)?.index;
  return {
    path: `/members/${index ?? '?'}/householdId`,
    message:
      `member ${JSON.stringify(move.correlationId)} leaves wallet ${move.fromWalletId}, which holds its active reservations ` +
      `(${reservationTokens.join(', ')}${why ? `; ${why}` : ''}); release them first`,
  };
}
