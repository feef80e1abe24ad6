import { systemClock, type Clock } from '../../domain/clock';
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
  /** Dates the fences of members being moved (default: the system clock); the servers judge them by theirs. */
  clock?: Clock;
  /** How long a fence holds unless the load renews it (default one minute): how long a load that died blocks its moving members. */
  moveLeaseMs?: number;
}

/**
 * Loads a fixture through the store port only. Records replace stored records
 * with the same key; balances and reservations go into their wallets through
 * the compare-and-set loop, so loading is safe next to a running server.
 *
 * Everything is read and checked before the first write: a fixture that
 * refers to unknown members fails without having changed the store. A
 * member that changes wallet is moved in steps that never leave a
 * reservation behind (member-move-steps.ts): a member that owns or funds live
 * reservations in the wallet it would leave, even one made while the load
 * runs, makes the load fail, naming it, having changed nothing; unless that
 * reservation was made after the load's fence lapsed (a load stalled past
 * its lease): then that member alone stays where it was, the rest of the
 * file is loaded, and the load still fails, naming it.
 */
export async function loadFixture(
  store: FixtureStore,
  fixture: Fixture,
  now: Date,
  limits: WalletLimits = defaultWalletLimits,
  options: LoadOptions = {},
): Promise<void> {
  const issues = checkFixture(fixture);
  if (issues.length > 0) throw new FixtureError(issues);
  const plan = await planLoad(store, fixture, now, limits);
  const moves = new MemberMoveSteps(store, plan.moves, { now, clock: options.clock ?? systemClock, leaseMs: options.moveLeaseMs ?? defaultMoveLeaseMs });
  const refused = await moves.fence();
  if (refused.length > 0) throw new FixtureError(refused.map((r) => moveIssue(plan, r)));

  await store.upsertClients(plan.clients);
  await store.upsertApiKeys(await newFixtureKeys(store, fixture, now));
  await store.upsertCatalogueItems(deepCopy(fixture.catalogueItems ?? []));
  await store.upsertRedemptions(deepCopy(fixture.redemptions ?? []));
  await store.upsertVoucherDefinitions(plan.voucherDefinitions);
  // Balances land in the new wallets (arriving) before members point there,
  // and leave the old wallets when the move is decided there.
  let walletsDone = 0;
  for (const [walletId, change] of plan.walletChanges) {
    await moves.renewIfDue();
    await updateWallet(store, walletId, (wallet) => applyWalletChange(wallet, change));
    options.onProgress?.(++walletsDone, plan.walletChanges.size);
  }
  await moves.renewIfDue();
  const late = await moves.commit();
  const stayed = new Set(late.map((r) => r.move.correlationId));
  await store.upsertMembers(plan.members.filter((m) => !stayed.has(m.correlationId)));
  await moves.finish();
  for (const move of plan.unfinished) await finishMove(store, move);
  if (late.length > 0) throw new FixtureError(late.map((r) => moveIssue(plan, r, 'made while the load ran, after its fence lapsed: this member stays where it was, the rest of the file is loaded')));
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
