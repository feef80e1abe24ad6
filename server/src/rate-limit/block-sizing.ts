/**
 * How many tokens a process asks for when it claims a block of a key's
 * window quota, and how many processes it believes share the database.
 */

/** The smallest and largest block a process claims at a given limit. */
export interface BlockBounds {
  min: number;
  max: number;
}

/**
 * At most 20 tokens (so that at the default limit a claim serves at least
 * 20 requests) and at most 2 % of the limit (so that small limits are still
 * shared); the largest block is 5 % of the limit, at least the smallest.
 */
export function blockBounds(limit: number): BlockBounds {
  const min = Math.min(20, Math.max(1, Math.floor(limit / 50)));
  return { min, max: Math.max(min, Math.floor(limit / 20)) };
}

/** What the size of the next block depends on. */
export interface BlockNeed {
  limit: number;
  bounds: BlockBounds;
  /** This process's recent rate of the key's requests (tokens per ms); null before its first block. */
  ratePerMs: number | null;
  /** A block should last about this long at that rate. */
  horizonMs: number;
  /** The window's count as this process last saw it: tokens claimed by every process. */
  fleetClaimed: number;
  /** The processes believed to claim for keys on this database. */
  fleetSize: number;
  /** Requests of the key waiting for this claim: it serves all of them when the quota allows. */
  waiting: number;
}

/**
 * Enough for `horizonMs` of this process's traffic, never more than half of
 * its fair share of what the window has left (so that a process that stops
 * getting the key's requests holds few tokens the others could use), within
 * the bounds; at least one per waiting request.
 */
export function blockSize(need: BlockNeed): number {
  const { bounds } = need;
  const byRate = need.ratePerMs === null ? bounds.min : Math.ceil(need.ratePerMs * need.horizonMs);
  const left = Math.max(0, need.limit - need.fleetClaimed);
  const halfFairShare = Math.floor(left / (2 * Math.max(1, need.fleetSize)));
  const size = Math.min(bounds.max, Math.max(bounds.min, Math.min(byRate, halfFairShare)));
  return Math.max(size, need.waiting);
}

/**
 * The tokens a claim obtained: those of its own range of the window's count
 * (`claimed` after the claim's increment) that fall within the limit, after
 * the admissions it reported. So the grants of all processes never add up
 * to more than the limit, whatever their order.
 */
export function grantOf(limit: number, claimedAfter: number, want: number, reported: number): number {
  const before = claimedAfter - want - reported;
  return Math.max(0, Math.min(want, limit - before - reported));
}

/**
 * The number of processes claiming on this database, as this process has
 * seen it: the most claimers of one window document in the current and the
 * previous period (a window's length), so that it follows a fleet that
 * shrinks; the last figure seen when no claim was made for two periods; 1
 * before any claim.
 */
export class FleetSize {
  private period = Number.NEGATIVE_INFINITY;
  private current = 0;
  private previous = 0;
  private known = 1;

  constructor(private readonly periodMs: number) {}

  saw(claimers: number, now: number): void {
    this.roll(now);
    this.current = Math.max(this.current, claimers);
    this.known = Math.max(this.current, this.previous, 1);
  }

  at(now: number): number {
    this.roll(now);
    const recent = Math.max(this.current, this.previous);
    return recent > 0 ? recent : this.known;
  }

  private roll(now: number): void {
    const period = Math.floor(now / this.periodMs);
    if (period === this.period) return;
    this.previous = period === this.period + 1 ? this.current : 0;
    this.current = 0;
    this.period = period;
  }
}
