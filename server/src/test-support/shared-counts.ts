import type { QuotaClaim, QuotaClaimAnswer } from '../store/port';
import type { Claim, GiveBack } from '../rate-limit/block-quota';

/** How the shared count answers a claim. */
export type CountBehaviour = 'answer' | 'fail' | 'hang';

/**
 * The window documents of a database, in memory, for tests of the block
 * counting without MongoDB: each claim is one atomic increment of its
 * window's count, answered a macrotask later (so that requests of a key
 * overlap a claim under way, as on a network), or failed, or never
 * answered, as `behaviour` says.
 */
export class SharedCounts {
  behaviour: CountBehaviour = 'answer';
  /** Every claim that reached the count, in order. */
  readonly claims: Array<QuotaClaim & { process: string }> = [];
  private readonly windows = new Map<string, { claimed: number; claimers: Set<string> }>();
  private readonly underWay = new Map<string, number>();
  /** The most claims of one key under way at once. */
  maxUnderWay = 0;

  /** The claim function of one process. */
  claimOf(process: string): Claim {
    return (request) => this.claim(process, request);
  }

  /** The give-back of one process: a decrement of the window's count. */
  giveBackOf(process: string): GiveBack {
    return async ({ key, window, tokens }) => {
      this.givenBack.push({ process, key, tokens });
      const stored = this.windows.get(`${window.start}:${key}`);
      if (stored) stored.claimed -= tokens;
    };
  }

  /** Every give-back, in order. */
  readonly givenBack: Array<{ process: string; key: string; tokens: number }> = [];

  claimed(key: string, windowStart: number): number {
    return this.windows.get(`${windowStart}:${key}`)?.claimed ?? 0;
  }

  claimsBy(process: string): number {
    return this.claims.filter((c) => c.process === process).length;
  }

  private async claim(process: string, request: QuotaClaim): Promise<QuotaClaimAnswer> {
    this.claims.push({ ...request, process });
    const busy = (this.underWay.get(request.key) ?? 0) + 1;
    this.underWay.set(request.key, busy);
    this.maxUnderWay = Math.max(this.maxUnderWay, busy);
    try {
      if (this.behaviour === 'hang') return await new Promise<never>(() => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      if (this.behaviour === 'fail') throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      const id = `${request.window.start}:${request.key}`;
      const window = this.windows.get(id) ?? { claimed: 0, claimers: new Set<string>() };
      window.claimed += request.want + request.unreported;
      window.claimers.add(process);
      this.windows.set(id, window);
      return { claimed: window.claimed, claimers: window.claimers.size };
    } finally {
      this.underWay.set(request.key, (this.underWay.get(request.key) ?? 1) - 1);
    }
  }
}
