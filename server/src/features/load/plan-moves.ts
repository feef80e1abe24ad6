import { moveOf } from '../../domain/member-move-rules';
import type { MemberMove, MemberRecord } from '../../domain/model';
import type { FixtureStore } from '../../store/port';
import type { PlannedMove } from './member-move-steps';

/** A member the fixture moves to another wallet, with its place in the fixture. */
export interface Move extends PlannedMove {
  /** Index of the member in the fixture's members. */
  index: number;
}

/** Wallets a member's `left` records may lead through before the plan gives up following them. */
const maxForwards = 8;

/**
 * Members whose wallet changes, from where they are now: the wallet their
 * record names, or, when a load that stopped half-way committed a move
 * there, the wallet its `left` record leads to. A move such a load
 * committed to the wallet the fixture names is only left to finish. Whether
 * a member may leave is decided later, by its old wallet (member-move-steps.ts).
 */
export async function planMoves(
  store: FixtureStore,
  members: MemberRecord[],
  stored: Map<string, MemberRecord | null>,
  recordedMoves: Map<string, MemberMove[]>,
): Promise<{ moves: Move[]; unfinished: PlannedMove[] }> {
  const movesOf = async (walletId: string) => recordedMoves.get(walletId) ?? (await store.loadWallet(walletId))?.moves;
  const moves: Move[] = [];
  const unfinished: PlannedMove[] = [];
  for (const [index, member] of members.entries()) {
    const before = stored.get(member.correlationId);
    if (!before) continue;
    let at = before.walletId;
    let move = moveOf(await movesOf(at), member.correlationId);
    for (let forwards = 0; move?.state === 'left' && forwards < maxForwards; forwards++) {
      at = move.walletId;
      move = moveOf(await movesOf(at), member.correlationId);
    }
    if (at !== member.walletId) {
      moves.push({ index, correlationId: member.correlationId, fromWalletId: at, toWalletId: member.walletId });
    } else if (at !== before.walletId || move?.state === 'arriving') {
      unfinished.push({ correlationId: member.correlationId, fromWalletId: move?.state === 'arriving' ? move.walletId : before.walletId, toWalletId: at });
    }
  }
  return { moves, unfinished };
}
