/**
 * Composition root: builds the store and the services for `main`.
 */
import type { Logger } from 'pino';
import { describeMongoTarget, type AppConfig } from './config';
import { systemClock } from './domain/clock';
import type { Services } from './domain/services';
import { createServices } from './features';
import type { Liveness } from './http/health';
import { rateLimitWindowSeconds } from './http/rate-limit';
import { demoFixturePath, loadFixture, readFixtureFile } from './store/fixture';
import { MemoryStore } from './store/memory/memory-store';
import { MongoStore } from './store/mongo/mongo-store';
import type { RequestCounter, Store } from './store/port';

export interface RuntimeDeps {
  services: Services;
  /** `/readyz` pings it; shutdown closes it after the last request. */
  store: Pick<Store, 'ping' | 'close'>;
  /** `/healthz`: whether the process can still recover by itself (absent: always). */
  liveness?: Liveness;
  /** The rate limit's count (absent: this process's own). */
  requestCounter?: RequestCounter;
}

/** What `main` calls; tests pass their own. */
export type BuildDeps = (config: AppConfig, logger: Logger) => Promise<RuntimeDeps>;

/** The store `config` selects, for the first log line. Never includes credentials. */
export function describeStore(config: Pick<AppConfig, 'mongo'>): string {
  return config.mongo ? `MongoDB at ${describeMongoTarget(config.mongo)}` : 'embedded in-process store';
}

export const buildDeps: BuildDeps = async (config, logger) => {
  const store = await buildStore(config, logger);
  const services = createServices({ store, clock: systemClock, walletLimits: config.walletLimits });
  if (!(store instanceof MongoStore)) return { services, store };
  // On MongoDB the fleet shares one count per key (falling back to this process's own while MongoDB fails).
  const requestCounter = config.rateLimitPerMinute > 0 ? store.requestCounter(config.rateLimitPerMinute, rateLimitWindowSeconds) : undefined;
  return { services, store, liveness: mongoLiveness(store), ...(requestCounter && { requestCounter }) };
};

/** Live unless the watchdog found the client stuck for too long to recover without a restart. */
function mongoLiveness(store: MongoStore): Liveness {
  return () => {
    const health = store.health();
    if (health.recoverable) return { live: true };
    const since = health.stuckSince?.toISOString() ?? 'a while';
    return { live: false, reason: `MongoDB answers a fresh client but not this process's since ${since}, after ${health.rebuilds} client replacements` };
  };
}

/**
 * The store `config` selects. MongoDB is seeded only when SEED_FILE asks; the
 * embedded store starts with SEED_FILE or the shipped demo fixture. A failure
 * after connecting closes the store before rethrowing.
 */
async function buildStore(config: AppConfig, logger: Logger): Promise<Store> {
  const seedFile = config.seedFile ?? (config.mongo ? null : demoFixturePath);
  // Read and validate the fixture before connecting: a bad fixture stops the start cheaply.
  const fixture = seedFile ? await readFixtureFile(seedFile) : null;
  const store: Store = config.mongo
    ? await MongoStore.connect(
        {
          uri: config.mongo.uri,
          dbName: config.mongo.dbName,
          serverSelectionTimeoutMS: config.mongo.serverSelectionTimeoutMs,
          socketTimeoutMS: config.mongo.socketTimeoutMs,
        },
        {
          onRebuild: (outcome, reason) =>
            outcome === 'replaced'
              ? logger.warn(`MongoDB client replaced: ${reason}`)
              : logger.error(`MongoDB client could not be replaced: ${reason}`),
        },
      )
    : new MemoryStore();
  try {
    if (fixture) {
      await loadFixture(store, fixture, systemClock(), config.walletLimits);
      logger.info({ seedFile }, 'Loaded fixture');
    }
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}
