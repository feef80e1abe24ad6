import { isLiveReservation, type MemberMove, type ReservationRecord } from './model';

/*
 * The rules of a member's move as its wallet records it (`MemberMove`):
 * what it means to the readers and writers of that wallet, and what holds
 * a member there. An operator's load moves a member in steps, each a
 * compare-and-set of one wallet (features/load/member-move-steps.ts), so
 * that the decision to let the member go is taken where its points are
 * held, and a reservation can never be made there once it is taken.
 */

/** The member's move recorded in these moves, if any. */
export function moveOf(moves: readonly MemberMove[] | undefined, correlationId: string): MemberMove | undefined {
  return moves?.find((m) => m.correlationId === correlationId);
}

/** Whether a load fences the member here at `now`: nothing new may draw on its points in this wallet. */
export function isFenced(move: MemberMove | undefined, now: Date): boolean {
  return move?.state === 'leaving' && move.until.getTime() > now.getTime();
}

/**
 * Whether the member's balance here may fund another member's reservation,
 * and counts in the household's sums, at `now`: not while it is fenced,
 * nor while it is arriving (the move that brings it is not finished), nor
 * once it has left.
 */
export function fundsOthers(move: MemberMove | undefined, now: Date): boolean {
  return move === undefined || (move.state === 'leaving' && !isFenced(move, now));
}

/** Whether the reservation is the member's, or holds some of its points. */
export function ownsOrFunds(reservation: Pick<ReservationRecord, 'correlationId' | 'contributions'>, correlationId: string): boolean {
  return reservation.correlationId === correlationId || reservation.contributions.some((c) => c.correlationId === correlationId && c.points > 0);
}

/** Tokens of the live reservations of `reservations` the member owns or funds: points it holds in that wallet. */
export function liveReservationsOf(reservations: readonly ReservationRecord[], correlationId: string, now: Date): string[] {
  return reservations
    .filter((r) => isLiveReservation(r, now) && ownsOrFunds(r, correlationId))
    .map((r) => r.reservationToken);
}

/** `moves` with the member's entry replaced by `move` (or removed, when null). */
export function withMove(moves: readonly MemberMove[] | undefined, correlationId: string, move: MemberMove | null): MemberMove[] {
  const others = (moves ?? []).filter((m) => m.correlationId !== correlationId);
  return move ? [...others, move] : others;
}
