import type { Clock } from '../../domain/clock';
import { liveReservationsOf, moveOf, ownsOrFunds, withMove } from '../../domain/member-move-rules';
import type { MemberMove, Wallet } from '../../domain/model';
import type { WholeWalletStore } from '../../store/port';
import { updateWallet } from '../../store/wallet-update';

/*
 * Moving members between wallets while requests are served, with no
 * transaction: a member's points and reservations are held by its wallet,
 * and its record says which wallet that is. A member holding live
 * reservations (its own, or points in another's) is never moved away from
 * them, and the decision is taken by a compare-and-set of the old wallet,
 * the same document Operation B writes to make a reservation there. A
 * load takes these steps for the members moving into one wallet at a time,
 * right after one another, so that a member is fenced for its own move:
 *
 * 1. fence: the old wallet marks the member `leaving` (until a lease ends),
 *    if it holds no live reservation of the member; from then on nothing
 *    new draws on its points there (Operation B answers the member 503, and
 *    its household does not draw on it). A refusal lifts every fence these
 *    steps set, so none of their moves is written.
 * 2. the new wallet gets the member's balance as `arriving` (apply-wallet-change.ts):
 *    not counted for the others there until the move is finished.
 * 3. commit: the old wallet drops the member's balance and marks it `left`,
 *    pointing to the new wallet (the member's requests follow it), if it
 *    still holds no live reservation of the member (it cannot, unless the
 *    fence lapsed: then the move is refused and undone, alone).
 * 4. the member's record points to the new wallet (load-fixture.ts).
 * 5. finish: the new wallet counts the balance for everyone; the old wallet
 *    forgets the member.
 *
 * A load that dies leaves nothing blocked: a fence lapses with its lease;
 * a committed move is followed through `left`, its member served in the new
 * wallet; loading the file again finishes what was left.
 */

/** A member leaving one wallet for another, as a load plans it. */
export interface PlannedMove {
  correlationId: string;
  fromWalletId: string;
  toWalletId: string;
}

/** A move the old wallet refused: the member owns or funds these live reservations there. */
export interface RefusedMove {
  move: PlannedMove;
  reservationTokens: string[];
}

/** How long a fence holds unless renewed; a load renews its fences at half of it. */
export const defaultMoveLeaseMs = 60_000;

export interface MemberMoveStepsOptions {
  /** Liveness of reservations is judged at this time (the load's). */
  now: Date;
  /** Dates the fences' leases. */
  clock: Clock;
  leaseMs: number;
}

/** The steps of one load's moves, each a compare-and-set of one wallet. */
export class MemberMoveSteps {
  /** Moves fenced in their old wallet (one that does not exist needs none). */
  private fenced: PlannedMove[] = [];
  private fencedAt = 0;
  /** Moves their old wallet refused at the commit. */
  private readonly refused = new Set<PlannedMove>();

  constructor(
    private readonly store: WholeWalletStore,
    private readonly moves: readonly PlannedMove[],
    private readonly options: MemberMoveStepsOptions,
  ) {}

  /**
   * Step 1 for every move. Returns the refusals; when there is any, every
   * fence set is lifted again, and the load must stop.
   */
  async fence(): Promise<RefusedMove[]> {
    const refused: RefusedMove[] = [];
    this.fencedAt = this.options.clock().getTime();
    const until = new Date(this.fencedAt + this.options.leaseMs);
    for (const move of this.moves) {
      let holding: string[] = [];
      let exists = false;
      await updateWallet(this.store, move.fromWalletId, (wallet) => {
        // A wallet that does not exist holds nothing to fence, or to commit (and is not made here).
        exists = wallet.version > 0;
        holding = exists ? this.liveReservations(wallet, move) : [];
        if (!exists || holding.length > 0) return false;
        wallet.moves = withMove(wallet.moves, move.correlationId, { correlationId: move.correlationId, state: 'leaving', walletId: move.toWalletId, until });
        return true;
      });
      if (holding.length > 0) refused.push({ move, reservationTokens: holding });
      else if (exists) this.fenced.push(move);
    }
    if (refused.length > 0) await this.lift(this.fenced.splice(0));
    return refused;
  }

  /** Renews the fences once half their lease has passed (a long load calls this as it goes). */
  async renewIfDue(): Promise<void> {
    const now = this.options.clock().getTime();
    if (now - this.fencedAt < this.options.leaseMs / 2) return;
    this.fencedAt = now;
    const until = new Date(now + this.options.leaseMs);
    for (const move of this.fenced) {
      await updateWallet(this.store, move.fromWalletId, (wallet) => {
        const fence = moveOf(wallet.moves, move.correlationId);
        if (fence?.state !== 'leaving') return false;
        wallet.moves = withMove(wallet.moves, move.correlationId, { ...fence, until });
        return true;
      });
    }
  }

  /**
   * Step 3 for every fenced move. Returns the moves refused there (a
   * reservation appeared after the fence lapsed): each is undone, in its old
   * wallet and then its new one, and its member must stay where it is.
   */
  async commit(): Promise<RefusedMove[]> {
    const refused: RefusedMove[] = [];
    for (const move of this.fenced) {
      let holding: string[] = [];
      await updateWallet(this.store, move.fromWalletId, (wallet) => {
        holding = this.liveReservations(wallet, move);
        if (holding.length > 0) {
          wallet.moves = withMove(wallet.moves, move.correlationId, null);
          return true;
        }
        wallet.balances = wallet.balances.filter((b) => b.correlationId !== move.correlationId);
        wallet.moves = withMove(wallet.moves, move.correlationId, { correlationId: move.correlationId, state: 'left', walletId: move.toWalletId });
        return true;
      });
      if (holding.length > 0) refused.push({ move, reservationTokens: holding });
    }
    for (const r of refused) {
      this.refused.add(r.move);
      await this.undo(r.move);
    }
    return refused;
  }

  /** Step 5 for every move not refused (their members' records point to their new wallets). */
  async finish(): Promise<void> {
    for (const move of this.moves) if (!this.refused.has(move)) await finishMove(this.store, move);
  }

  /**
   * Takes a member a refused move was bringing out of its new wallet
   * again: its arriving balance, and the reservations the load put there
   * that it owns or funds (they stand on that balance, which stays in the
   * old wallet; the member's record never pointed there, and an arriving
   * balance funds nobody else).
   */
  private async undo(move: PlannedMove): Promise<void> {
    await updateWallet(this.store, move.toWalletId, (wallet) => {
      if (moveOf(wallet.moves, move.correlationId)?.state !== 'arriving') return false;
      wallet.balances = wallet.balances.filter((b) => b.correlationId !== move.correlationId);
      wallet.reservations = wallet.reservations.filter((r) => !ownsOrFunds(r, move.correlationId));
      wallet.moves = withMove(wallet.moves, move.correlationId, null);
      return true;
    });
  }

  private async lift(moves: readonly PlannedMove[]): Promise<void> {
    for (const move of moves) {
      await updateWallet(this.store, move.fromWalletId, (wallet) => dropMove(wallet, move.correlationId, 'leaving'));
    }
  }

  private liveReservations(wallet: Wallet, move: PlannedMove): string[] {
    return liveReservationsOf(wallet.reservations, move.correlationId, this.options.now);
  }
}

/**
 * Step 5 of one move: the new wallet counts the member's balance for
 * everyone, and the old one forgets the member (its record no longer leads
 * there). Also what finishes a move a load that died left committed.
 */
export async function finishMove(store: WholeWalletStore, move: PlannedMove): Promise<void> {
  await updateWallet(store, move.toWalletId, (wallet) => dropMove(wallet, move.correlationId, 'arriving'));
  await updateWallet(store, move.fromWalletId, (wallet) => dropMove(wallet, move.correlationId, 'left'));
}

function dropMove(wallet: Wallet, correlationId: string, state: MemberMove['state']): boolean {
  if (moveOf(wallet.moves, correlationId)?.state !== state) return false;
  wallet.moves = withMove(wallet.moves, correlationId, null);
  return true;
}
