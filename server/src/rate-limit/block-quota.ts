import type { LRUCache } from 'lru-cache';
import pTimeout from 'p-timeout';
import { boundedCache } from '../caching/bounded-cache';
import type { QuotaClaim, QuotaClaimAnswer, QuotaReturn, QuotaWindow, SharedQuotaStore } from '../store/port';
import { blockBounds, blockSize, FleetSize, grantOf, type BlockBounds } from './block-sizing';
import { maxCountedKeys, type RequestCounter, type WindowCount } from './counter';
import { rateLimitWindowMs, windowAt, windowOffset } from './windows';

/** One atomic increment of the shared count of a key's window: the store's `claimQuota`. */
export type Claim = SharedQuotaStore['claimQuota'];
/** One atomic decrement of it by tokens left unspent: the store's `returnQuota`. */
export type GiveBack = SharedQuotaStore['returnQuota'];

export interface BlockQuotaOptions {
  limit: number;
  claim: Claim;
  /** Default `rateLimitWindowMs`. */
  windowMs?: number;
  /** A claim that has not answered by then counts as failed: the database is taken as away. Default `claimTimeoutMs`. */
  timeoutMs?: number;
  now?: () => number;
  /** Keys whose state a process keeps at most; default `maxCountedKeys`. */
  maxKeys?: number;
  /** While the database is away, one claim of the process tries it again at most this often; default `awayRetryMs`. */
  retryMs?: number;
  /** Gives unspent tokens back to the shared count (`returnIdle`, `returnAll`, `close`); absent: they are kept until the window ends. */
  giveBack?: GiveBack;
}

/** How long a claim may take before this process counts on its own (the database taken as away). */
export const claimTimeoutMs = 1000;
/** While the database is away, a claim tries it again this often. */
export const awayRetryMs = 1000;
/** How long a stopping process waits, at most, for its unspent tokens to reach the shared count. */
export const closeTimeoutMs = 2000;
/** Keys whose tokens are given back at once, at most (a process that stops with many keys holding tokens). */
const giveBackBatch = 100;

/** What a process knows of one key. */
interface KeyQuota {
  offset: number;
  window: QuotaWindow;
  /** Tokens this process holds and has not spent. */
  held: number;
  /** Requests this process admitted in the window. */
  admitted: number;
  /** Of those, admitted on its own count and not yet added to the window's count. */
  unreported: number;
  /** The window's count as the last claim answered. */
  fleetClaimed: number;
  /** Every token of the window is claimed: refused here, with no command, until the window ends. */
  exhausted: boolean;
  /** The claim under way: the requests needing a token share it. */
  claiming: Promise<void> | null;
  waiting: number;
  lastClaim: { at: number; granted: number } | null;
  ratePerMs: number | null;
  /** When a token of the key was last spent here, or a block granted. */
  lastUsed: number;
}

/** The database away: requests do not wait for it; one claim tries it again from `retryAt`. */
interface Away {
  retryAt: number;
  probing: boolean;
}

/**
 * Requests per key and window, counted for every process sharing one count
 * (`claim`), with few writes: a process takes the key's quota in blocks
 * (one claim per block), spends them in memory, and refuses in memory once
 * the window's quota is all claimed, until the window ends. The grants of
 * all processes never add up to more than the limit (`grantOf`).
 *
 * When a claim fails or misses its deadline, the database is taken as away:
 * the process spends what it holds, then counts on its own, admitting per
 * key and window at most its share of the limit (the limit divided by the
 * processes it saw claiming, `FleetSize`), its admissions of the window
 * included; no request waits for the database then. One claim at a time
 * tries it again; the admissions it made alone are added to the window's
 * count by its next claim.
 *
 * A request waits for at most one claim at a time, the one under way for its
 * key, and for at most two in all (the one under way, then the one sized
 * for every request waiting).
 *
 * Tokens a process holds come back to the window's count, for the others to
 * claim, once its block of a key has sat unused for a block's time
 * (`returnIdle`, every half of it once `start`ed: the key's requests went
 * to other processes) and when the process stops (`close`). A token given
 * back is never spent here, so the grants of all processes still never
 * exceed the limit.
 */
export class BlockQuotaCounter implements RequestCounter {
  /** A key's state lives while the key is counted: a key silent for a window is forgotten. */
  private readonly quotas: LRUCache<string, KeyQuota>;
  private readonly fleet: FleetSize;
  private readonly bounds: BlockBounds;
  private readonly limit: number;
  private readonly claim: Claim;
  private readonly windowMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly retryMs: number;
  private readonly giveBack: GiveBack | undefined;
  /** A block is sized for this long of the key's traffic, and given back once unused for as long. */
  readonly blockMs: number;
  private idleCheck: NodeJS.Timeout | null = null;
  private away: Away | null = null;

  constructor(options: BlockQuotaOptions) {
    this.limit = options.limit;
    this.claim = options.claim;
    this.windowMs = options.windowMs ?? rateLimitWindowMs;
    this.timeoutMs = options.timeoutMs ?? claimTimeoutMs;
    this.now = options.now ?? Date.now;
    this.retryMs = options.retryMs ?? awayRetryMs;
    this.giveBack = options.giveBack;
    this.blockMs = this.windowMs / 10;
    this.quotas = boundedCache({ maxEntries: options.maxKeys ?? maxCountedKeys, ttlMs: this.windowMs, ttlFromLastRead: true, now: this.now });
    this.fleet = new FleetSize(this.windowMs);
    this.bounds = blockBounds(this.limit);
  }

  /** Whether the database is taken as away: the process counts on its own. */
  get countingAlone(): boolean {
    return this.away !== null;
  }

  /** Checks every half block's time for blocks left unused (`returnIdle`); never keeps the process alive. */
  start(): void {
    if (!this.giveBack || this.idleCheck) return;
    this.idleCheck = setInterval(() => void this.returnIdle(), this.blockMs / 2);
    this.idleCheck.unref();
  }

  /**
   * Stops the idle check and gives back every token held (the process
   * stops), waiting at most `closeTimeoutMs`; fails when the give-back does.
   */
  async close(): Promise<void> {
    if (this.idleCheck) clearInterval(this.idleCheck);
    this.idleCheck = null;
    await pTimeout(this.returnAll(), { milliseconds: closeTimeoutMs, message: false });
  }

  /** Gives back the tokens of every key whose block has sat unused for `blockMs` (its requests go elsewhere). */
  returnIdle(): Promise<void> {
    const now = this.now();
    return this.giveBackWhere((q) => now - q.lastUsed >= this.blockMs, now);
  }

  /** Gives back every token held. */
  private returnAll(): Promise<void> {
    return this.giveBackWhere(() => true, this.now());
  }

  /**
   * Gives back what the keys `which` picks hold in their current window. The
   * tokens leave this process first: one that fails to reach the count is
   * lost until the window ends (as every token was before), never counted
   * twice. Not while the database is away (the count would not hear it).
   */
  private async giveBackWhere(which: (q: KeyQuota) => boolean, now: number): Promise<void> {
    const giveBack = this.giveBack;
    if (!giveBack || this.away) return;
    const returns: QuotaReturn[] = [];
    // Entries in the cache's order, without touching their recency or age.
    for (const [key, q] of this.quotas.entries()) {
      if (q.held <= 0 || now < q.window.start || now >= q.window.end || !which(q)) continue;
      returns.push({ key, window: q.window, tokens: q.held });
      q.fleetClaimed = Math.max(0, q.fleetClaimed - q.held);
      q.held = 0;
    }
    for (let i = 0; i < returns.length; i += giveBackBatch) {
      await Promise.all(returns.slice(i, i + giveBackBatch).map((returned) => giveBack(returned).catch(() => undefined)));
    }
  }

  /** Keys whose state this process holds (at most `maxKeys`, none silent for a window). */
  get keysHeld(): number {
    return [...this.quotas.keys()].length;
  }

  hit(key: string): WindowCount | Promise<WindowCount> {
    const now = this.now();
    return this.takeNow(key, this.quotaOf(key, now), now) ?? this.takeAfterClaim(key);
  }

  /** The answer that needs no claim, or null when the request must wait for one. */
  private takeNow(key: string, q: KeyQuota, now: number): WindowCount | null {
    if (q.held > 0) {
      q.held--;
      q.admitted++;
      q.lastUsed = now;
      return this.count(q, now, q.held + Math.max(0, this.limit - q.fleetClaimed));
    }
    if (q.exhausted) return this.refused(q, now);
    if (this.away) {
      const count = this.countAlone(q, now);
      this.probe(key, q, now);
      return count;
    }
    return null;
  }

  private async takeAfterClaim(key: string): Promise<WindowCount> {
    for (let round = 0; round < 2; round++) {
      const q = this.quotaOf(key, this.now());
      q.waiting++;
      try {
        await (q.claiming ??= this.claimFor(key, q, this.now()));
      } finally {
        q.waiting--;
      }
      const now = this.now();
      const taken = this.takeNow(key, this.quotaOf(key, now), now);
      if (taken) return taken;
    }
    // The second claim was sized for every request then waiting; those that
    // came later took its tokens first. Counted here and told to the window
    // by the next claim, rather than waiting for a third.
    const now = this.now();
    return this.countAlone(this.quotaOf(key, now), now);
  }

  /** Admits within this process's share of the limit, on its own count. */
  private countAlone(q: KeyQuota, now: number): WindowCount {
    const share = Math.ceil(this.limit / this.fleet.at(now));
    if (q.admitted >= share) return this.refused(q, now);
    q.admitted++;
    q.unreported++;
    return this.count(q, now, share - q.admitted);
  }

  private count(q: KeyQuota, now: number, remaining: number): WindowCount {
    return { hits: this.limit - Math.min(this.limit, remaining), msBeforeReset: q.window.end - now };
  }

  private refused(q: KeyQuota, now: number): WindowCount {
    return { hits: this.limit + 1, msBeforeReset: q.window.end - now };
  }

  /** While the database is away: one claim of the whole process at a time tries it again. */
  private probe(key: string, q: KeyQuota, now: number): void {
    const away = this.away;
    if (!away || away.probing || now < away.retryAt || q.claiming) return;
    away.probing = true;
    away.retryAt = now + this.retryMs;
    const claim = this.claimFor(key, q, now);
    q.claiming = claim;
    void claim.finally(() => {
      if (this.away) this.away.probing = false;
    });
  }

  private claimFor(key: string, q: KeyQuota, now: number): Promise<void> {
    const request: QuotaClaim = { key, window: q.window, want: this.blockFor(q, now), unreported: q.unreported };
    let inTime = true;
    const answered = Promise.resolve()
      .then(() => this.claim(request))
      .then(
        // A late answer still brings its tokens (they are counted), but does not end the outage.
        (answer) => this.apply(q, request, answer, now, inTime),
        () => {
          if (inTime) this.markAway();
        },
      );
    const claim: Promise<void> = pTimeout(answered, {
      milliseconds: this.timeoutMs,
      fallback: () => {
        inTime = false;
        this.markAway();
      },
    }).finally(() => {
      if (q.claiming === claim) q.claiming = null;
    });
    return claim;
  }

  private apply(q: KeyQuota, request: QuotaClaim, answer: QuotaClaimAnswer, sentAt: number, inTime: boolean): void {
    const now = this.now();
    this.fleet.saw(answer.claimers, now);
    if (inTime) this.away = null;
    // The window ended while the claim was under way: its tokens can no longer be spent.
    if (q.window.start !== request.window.start) return;
    const granted = grantOf(this.limit, answer.claimed, request.want, request.unreported);
    q.held += granted;
    if (granted > 0) q.lastUsed = now;
    // A claim that missed its deadline may land after another reported the same admissions: counted twice, never below zero.
    q.unreported = Math.max(0, q.unreported - request.unreported);
    q.fleetClaimed = Math.max(q.fleetClaimed, answer.claimed);
    if (q.fleetClaimed >= this.limit) q.exhausted = true;
    q.lastClaim = { at: sentAt, granted };
  }

  private blockFor(q: KeyQuota, now: number): number {
    // The last block is spent (a claim is made only then): the rate at which it was.
    if (q.lastClaim && q.lastClaim.granted > 0) q.ratePerMs = q.lastClaim.granted / Math.max(1, now - q.lastClaim.at);
    return blockSize({
      limit: this.limit,
      bounds: this.bounds,
      ratePerMs: q.ratePerMs,
      horizonMs: this.blockMs,
      fleetClaimed: q.fleetClaimed,
      fleetSize: this.fleet.at(now),
      waiting: q.waiting,
    });
  }

  private markAway(): void {
    const retryAt = this.now() + this.retryMs;
    if (this.away) this.away.retryAt = Math.max(this.away.retryAt, retryAt);
    else this.away = { retryAt, probing: false };
  }

  /** The key's state in its current window (a new window starts from nothing but the key's rate). */
  private quotaOf(key: string, now: number): KeyQuota {
    let q = this.quotas.get(key);
    if (!q) {
      const offset = windowOffset(key, this.windowMs);
      q = fresh(offset, windowAt(now, this.windowMs, offset), now);
      this.quotas.set(key, q);
    } else if (now >= q.window.end || now < q.window.start) {
      Object.assign(q, fresh(q.offset, windowAt(now, this.windowMs, q.offset), now), { ratePerMs: q.ratePerMs, waiting: q.waiting });
    }
    return q;
  }
}

function fresh(offset: number, window: QuotaWindow, now: number): KeyQuota {
  return {
    offset,
    window,
    held: 0,
    admitted: 0,
    unreported: 0,
    fleetClaimed: 0,
    exhausted: false,
    claiming: null,
    waiting: 0,
    lastClaim: null,
    ratePerMs: null,
    lastUsed: now,
  };
}
