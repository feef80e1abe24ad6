import type { ClientRecord, ReservationRecord, Wallet } from '../../domain/model';

/** An expired reservation counts as not existing. */
export function isActive(reservation: ReservationRecord, now: Date): boolean {
  return reservation.expiresAt.getTime() > now.getTime();
}

export interface ReservationKey {
  clientId: string;
  correlationId: string;
  reservationToken: string;
}

/** A token names a reservation only for the client that made it and on its member's path. */
export function sameKey(reservation: ReservationRecord, key: ReservationKey): boolean {
  return (
    reservation.reservationToken === key.reservationToken &&
    reservation.clientId === key.clientId &&
    reservation.correlationId === key.correlationId
  );
}

export function findActiveReservation(wallet: Wallet, key: ReservationKey, now: Date): ReservationRecord | undefined {
  return wallet.reservations.find((r) => sameKey(r, key) && isActive(r, now));
}

/** Live reservations in the wallet (a released one, at 0, too: it exists until it expires). */
export function activeCount(wallet: Wallet, now: Date): number {
  let count = 0;
  for (const reservation of wallet.reservations) if (isActive(reservation, now)) count++;
  return count;
}

export function pointBalanceOf(wallet: Wallet, correlationId: string): number {
  return wallet.balances.find((b) => b.correlationId === correlationId)?.pointBalance ?? 0;
}

/** Points the member holds in active reservations. */
export function heldBy(wallet: Wallet, correlationId: string, now: Date): number {
  let held = 0;
  for (const reservation of wallet.reservations) {
    if (!isActive(reservation, now)) continue;
    for (const c of reservation.contributions) if (c.correlationId === correlationId) held += c.points;
  }
  return held;
}

/** Balance minus what the member contributes to active reservations. */
export function availableOf(wallet: Wallet, correlationId: string, now: Date): number {
  return pointBalanceOf(wallet, correlationId) - heldBy(wallet, correlationId, now);
}

/** Points the member reserved through this client during the current UTC day, cap-exempt ones aside. */
export function reservedToday(wallet: Wallet, client: ClientRecord, correlationId: string, now: Date): number {
  const today = utcDay(now);
  return wallet.reservations
    .filter(
      (r) =>
        r.clientId === client.clientId &&
        r.correlationId === correlationId &&
        !r.excludedFromCap &&
        isActive(r, now) &&
        utcDay(r.createdAt) === today,
    )
    .reduce((sum, r) => sum + r.reservationAmount, 0);
}

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
