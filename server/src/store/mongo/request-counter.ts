import type { Db, IndexDescription } from 'mongodb';
import { RateLimiterMemory, RateLimiterMongo, RateLimiterRes } from 'rate-limiter-flexible';
import type { RequestCounter, WindowCount } from '../port';

/** The collection of the counters; one document per key and window. */
export const requestCounterCollection = 'rateLimits';

/** Its indexes, as rate-limiter-flexible would create them (it is told not to: the store creates them at start). */
export const requestCounterIndexes: IndexDescription[] = [
  // Expired windows are removed by the server (they are ignored before that).
  { key: { expire: -1 }, expireAfterSeconds: 0 },
  { key: { key: 1 }, unique: true },
];

/**
 * Requests per key and window, counted in MongoDB so that every process on
 * the database counts for all of them (rate-limiter-flexible's
 * RateLimiterMongo: one findAndModify per request). When MongoDB fails, the
 * count falls back to this process's own (its insurance limiter), so an
 * outage of the counters never refuses a request by itself.
 */
export class MongoRequestCounter implements RequestCounter {
  private current: { generation: number; limiter: RateLimiterMongo } | null = null;
  private readonly insurance: RateLimiterMemory;

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
    /** The database of the current client: a new limiter follows a replaced client. */
    private readonly database: () => { db: Db; generation: number },
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

  private limiter(): RateLimiterMongo {
    const { db, generation } = this.database();
    if (this.current?.generation !== generation) {
      const limiter = new RateLimiterMongo({
        storeClient: db,
        tableName: requestCounterCollection,
        keyPrefix: 'client',
        points: this.limit,
        duration: this.windowSeconds,
        insuranceLimiter: this.insurance,
        disableIndexesCreation: true,
      });
      this.current = { generation, limiter };
    }
    return this.current.limiter;
  }
}

function countOf(result: RateLimiterRes): WindowCount {
  return { hits: result.consumedPoints, msBeforeReset: result.msBeforeNext };
}
