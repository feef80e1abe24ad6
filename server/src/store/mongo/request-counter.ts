import type { Db, IndexDescription } from 'mongodb';
import { RateLimiterMemory, RateLimiterMongo, RateLimiterRes, RLWrapperTimeouts } from 'rate-limiter-flexible';
import type { RequestCounter, WindowCount } from '../port';

/** The collection of the counters; one document per key and window. */
export const requestCounterCollection = 'rateLimits';

/** How long a count in MongoDB may take before this process's own count answers instead. */
export const counterTimeoutMs = 1000;

/** Its indexes, as rate-limiter-flexible would create them (it is told not to: the store creates them at start). */
export const requestCounterIndexes: IndexDescription[] = [
  // Expired windows are removed by the server (they are ignored before that).
  { key: { expire: -1 }, expireAfterSeconds: 0 },
  { key: { key: 1 }, unique: true },
];

/**
 * Requests per key and window, counted in MongoDB so that every process on
 * the database counts for all of them (rate-limiter-flexible's
 * RateLimiterMongo: one findAndModify per request). When MongoDB fails, or
 * does not answer within `timeoutMs` (the library's RLWrapperTimeouts), the
 * count falls back to this process's own (its insurance limiter), so an
 * outage of the counters never refuses a request by itself nor holds it
 * for long.
 */
export class MongoRequestCounter implements RequestCounter {
  private current: { generation: number; limiter: RLWrapperTimeouts } | null = null;
  private readonly insurance: RateLimiterMemory;

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
    /** The database of the current client: a new limiter follows a replaced client. */
    private readonly database: () => { db: Db; generation: number },
    private readonly timeoutMs: number = counterTimeoutMs,
  ) {
    this.insurance = new RateLimiterMemory({ points: limit, duration: windowSeconds });
  }

  async hit(key: string): Promise<WindowCount> {
    try {
      return countOf(await this.limiter().consume(key));
    } catch (rejected) {
      // Past the limit: the library rejects with the same result.
      if (rejected instanceof RateLimiterRes) return countOf(rejected);
      throw rejected;
    }
  }

  private limiter(): RLWrapperTimeouts {
    const { db, generation } = this.database();
    if (this.current?.generation !== generation) {
      const counting = new RateLimiterMongo({
        storeClient: db,
        tableName: requestCounterCollection,
        keyPrefix: 'client',
        points: this.limit,
        duration: this.windowSeconds,
        insuranceLimiter: this.insurance,
        disableIndexesCreation: true,
      });
      // Falls back to the same insurance limiter on a timeout.
      const limiter = new RLWrapperTimeouts({ limiter: counting, timeoutMs: this.timeoutMs });
      this.current = { generation, limiter };
    }
    return this.current.limiter;
  }
}

function countOf(result: RateLimiterRes): WindowCount {
  return { hits: result.consumedPoints, msBeforeReset: result.msBeforeNext };
}
