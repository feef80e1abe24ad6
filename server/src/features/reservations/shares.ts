import type { Contribution } from '../../domain/model';

/**
 * Splits `difference` points over the contributors in proportion to what each
 * contributed, in whole points summing exactly to `difference`:
 * largest-remainder rounding, ties to the larger original contribution, then
 * to the smaller correlation id (string order). BigInt keeps `difference *
 * points` exact for any safe integers.
 */
export function splitReturn(contributions: Contribution[], difference: number): Contribution[] {
  const total = contributions.reduce((sum, c) => sum + c.points, 0);
  if (difference <= 0 || total === 0) return contributions.map((c) => ({ correlationId: c.correlationId, points: 0 }));
  if (difference > total) throw new RangeError('cannot return more than was contributed');

  const d = BigInt(difference);
  const t = BigInt(total);
  const parts = contributions.map((c, index) => {
    const exact = d * BigInt(c.points);
    return { index, contribution: c, floor: exact / t, remainder: exact % t };
  });
  let leftover = d - parts.reduce((sum, p) => sum + p.floor, 0n);
  const byRemainder = [...parts].sort(
    (a, b) =>
      compareBigInt(b.remainder, a.remainder) ||
      b.contribution.points - a.contribution.points ||
      compareStrings(a.contribution.correlationId, b.contribution.correlationId),
  );
  const bonus = new Set<number>();
  for (const part of byRemainder) {
    if (leftover === 0n) break;
    bonus.add(part.index);
    leftover -= 1n;
  }
  return parts.map((p) => ({
    correlationId: p.contribution.correlationId,
    points: Number(p.floor) + (bonus.has(p.index) ? 1 : 0),
  }));
}

/** Contributions after returning `shares`; members left with nothing drop out. */
export function subtractShares(contributions: Contribution[], shares: Contribution[]): Contribution[] {
  return contributions
    .map((c, i) => ({ correlationId: c.correlationId, points: c.points - (shares[i]?.points ?? 0) }))
    .filter((c) => c.points > 0);
}

export interface Funder {
  correlationId: string;
  available: number;
}

/**
 * Who funds a new reservation of `amount`: the reserving member first, then
 * the others in descending order of available points (ties by correlation
 * id). Returns null when they cannot cover it.
 */
export function fundReservation(amount: number, self: Funder, others: Funder[]): Contribution[] | null {
  const order = [
    self,
    ...[...others].sort((a, b) => b.available - a.available || compareStrings(a.correlationId, b.correlationId)),
  ];
  const contributions: Contribution[] = [];
  let remaining = amount;
  for (const funder of order) {
    if (remaining === 0) break;
    const points = Math.min(remaining, Math.max(0, funder.available));
    if (points > 0) contributions.push({ correlationId: funder.correlationId, points });
    remaining -= points;
  }
  return remaining === 0 ? contributions : null;
}

function compareBigInt(a: bigint, b: bigint): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Plain code-unit order, as the decisions say "string order" (not locale order). */
export function compareStrings(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}
