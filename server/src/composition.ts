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
import { commandCollection, Metrics } from './metrics';
import { MemoryStore } from './store/memory/memory-store';
import { MongoStore } from './store/mongo/mongo-store';
import { observedStore } from './store/observed-store';
import type { RequestCounter, Store } from './store/port';
import type { Tracing } from './tracing';

export interface RuntimeDeps {
  services: Services;
  /** `/readyz` pings it; shutdown closes it after the last request. */
  store: Pick<Store, 'ping' | 'close'>;
  /** `/healthz`: whether the process can still recover by itself (absent: always). */
  liveness?: Liveness;
  /** The rate limit's count (absent: this process's own). */
  requestCounter?: RequestCounter;
  /** The process's metrics (absent: none, METRICS=off). */
  metrics?: Metrics;
}

/** What `main` calls; tests pass their own. `tracing`: the process's, when on. */
export type BuildDeps = (config: AppConfig, logger: Logger, tracing?: Tracing | null) => Promise<RuntimeDeps>;

/** The store `config` selects, for the first log line. Never includes credentials. */
export function describeStore(config: Pick<AppConfig, 'mongo'>): string {
  return config.mongo ? `MongoDB at ${describeMongoTarget(config.mongo)}` : 'embedded in-process store';
}

export const buildDeps: BuildDeps = async (config, logger, tracing) => {
  const metrics = config.metrics ? new Metrics({ processMetrics: true }) : undefined;
  const store = await buildStore(config, logger, metrics);
  // The services' store calls are timed and traced; seeding and readiness pings are not.
  const timed = metrics ? observedStore(store, (method, seconds, failure) => metrics.observeStoreCall(method, seconds, failure)) : store;
  const services = createServices({
    store: tracing ? tracing.traceStore(timed) : timed,
    clock: systemClock,
    walletLimits: config.walletLimits,
    ...(metrics && { onPointsMoved: (reserved: number, returned: number) => metrics.pointsMoved(reserved, returned) }),
  });
  const common = { services, store, ...(metrics && { metrics }) };
  if (!(store instanceof MongoStore)) return common;
  // On MongoDB the fleet shares one count per key (falling back to this process's own while MongoDB fails).
  const counter = config.rateLimitPerMinute > 0 ? store.requestCounter(config.rateLimitPerMinute, rateLimitWindowSeconds) : undefined;
  const requestCounter = counter && tracing ? tracing.traceRequestCounter(counter) : counter;
  return { ...common, liveness: mongoLiveness(store), ...(requestCounter && { requestCounter }) };
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
async function buildStore(config: AppConfig, logger: Logger, metrics: Metrics | undefined): Promise<Store> {
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
          onCheck: (reachable) => metrics?.storeCheck(reachable),
          onRebuild: (outcome, reason) => {
            metrics?.clientReplacement(outcome);
            if (outcome === 'replaced') logger.warn(`MongoDB client replaced: ${reason}`);
            else logger.error(`MongoDB client could not be replaced: ${reason}`);
          },
          ...(metrics && { onCommand: (event) => metrics.mongoCommand(event.commandName, commandCollection(event.commandName, event.command)) }),
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
