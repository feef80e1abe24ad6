/**
 * Composition root: builds the store and the services for `main`.
 */
import type { Logger } from 'pino';
import { describeMongoTarget, type AppConfig } from './config';
import { memberIdsOf, memberIdScrubber, noMemberIds, shownMemberId, type MemberIdPolicy } from './domain/member-ids';
import { newLogKey } from './domain/secrets';
import { systemClock } from './domain/clock';
import { memberOfWalletId, walletIdOf } from './domain/model';
import type { Services } from './domain/services';
import { createServices, type ServiceDeps } from './features';
import type { Liveness } from './http/health';
import { demoFixturePath, readFixtureFile } from './features/load/read-fixture';
import { loadFixture } from './features/load/load-fixture';
import { Metrics } from './metrics';
import { observedStore } from './store/store-wrapper';
import { MemoryStore } from './store/memory/memory-store';
import { commandLabels } from './store/mongo/command-labels';
import { MongoStore } from './store/mongo/mongo-store';
import { BlockQuotaCounter } from './rate-limit/block-quota';
import type { RequestCounter } from './rate-limit/counter';
import {
  hasOutbox,
  reportsLiveness,
  sharesLogKey,
  sharesQuota,
  type Store,
  type StoreLifecycle,
  type SweepObservers,
  type VoucherDefinitionsVersioned,
} from './store/port';
import type { Tracing } from './tracing';
import { serverVersion } from './version';

export interface RuntimeDeps {
  services: Services;
  /** `/readyz` pings it; shutdown closes it after the last request. */
  store: StoreLifecycle;
  /** `/healthz`: whether the process can still recover by itself (absent: always). */
  liveness?: Liveness;
  /** The rate limit's count (absent: this process's own). */
  requestCounter?: RequestCounter;
  /** The process's metrics (absent: none, METRICS=off). */
  metrics?: Metrics;
  /** The key of the member hashes in logs and spans (absent: one of this process's own). */
  logKey?: Uint8Array;
}

/**
 * What a process keeps of the credentials it reads when several processes
 * share its store (MongoDB; the embedded store's reads cost nothing, and
 * nobody else changes them: it keeps none). At most 2 s, by contract: a
 * key's roll or revocation, and the end of its sessions, hold on every
 * process within that. The bounds hold the reads of the last 2 s at
 * thousands of requests a second; past them the least recently used go
 * (more reads, nothing wrong). Unknown keys and tokens are kept apart, within
 * bounds of their own: a stranger's values never push out real ones.
 */
export const fleetCredentialCaching: NonNullable<ServiceDeps['credentialCaching']> = {
  apiKeys: { ttlMs: 2000, maxEntries: 10_000, maxAbsentEntries: 10_000 },
  sessions: { ttlMs: 2000, maxEntries: 20_000, maxAbsentEntries: 20_000 },
};

/**
 * A store a process serves from: every port method, the voucher definitions
 * version, and whatever capabilities of port.ts it has (composition asks
 * for each: `hasOutbox`, `reportsLiveness`, `sharesLogKey`, `sharesQuota`).
 */
export type ServingStore = Store & VoucherDefinitionsVersioned;

/** What `main` calls; tests pass their own. `tracing`: the process's, when on. */
export type BuildDeps = (config: AppConfig, logger: Logger, tracing?: Tracing | null) => Promise<RuntimeDeps>;

/**
 * A start without MongoDB where the embedded store is not allowed
 * (ALLOW_EMBEDDED_STORE=false, as the Docker image sets): the embedded
 * store serves the demo data, whose secret keys are published, so an image
 * started without its database must not answer at all.
 */
export class EmbeddedStoreRefusedError extends Error {
  constructor() {
    super("MONGODB_URI is not set, and ALLOW_EMBEDDED_STORE=false refuses the embedded store (its demo data's keys are public): set MONGODB_URI to your MongoDB.");
    this.name = 'EmbeddedStoreRefusedError';
  }
}

/** Throws `EmbeddedStoreRefusedError` when `config` would start the embedded store and does not allow it. */
export function refuseUnallowedStore(config: Pick<AppConfig, 'mongo' | 'allowEmbeddedStore'>): void {
  if (!config.mongo && !config.allowEmbeddedStore) throw new EmbeddedStoreRefusedError();
}

/** The store `config` selects, for the first log line. Never includes credentials. */
export function describeStore(config: Pick<AppConfig, 'mongo'>): string {
  return config.mongo ? `MongoDB at ${describeMongoTarget(config.mongo)}` : 'embedded in-process store';
}

export const buildDeps: BuildDeps = async (config, logger, tracing) => {
  const metrics = config.metrics ? new Metrics({ processMetrics: true, version: serverVersion() }) : undefined;
  const store = await buildStore(config, logger, metrics);
  let logKey: Uint8Array;
  try {
    // A store the fleet shares holds one key, so that a member has one hash on every process.
    logKey = config.logMemberIds === 'hashed' && sharesLogKey(store) ? await store.logKey() : newLogKey();
  } catch (error) {
    await store.close();
    throw error;
  }
  const memberIds: MemberIdPolicy = { mode: config.logMemberIds, key: logKey };
  return { ...depsOf(store, config, logger, { ...(metrics && { metrics }), ...(tracing && { tracing }), memberIds }), logKey };
};

/**
 * A wallet as the log names it: a household's by its id; a member's own
 * wallet by the member's id as the logs show members (LOG_MEMBER_IDS): its
 * keyed hash, not at all, or as it is.
 */
export function walletLabelOf(policy: MemberIdPolicy): (walletId: string) => string {
  return (walletId) => {
    const member = memberOfWalletId(walletId);
    return member === null ? walletId : walletIdOf(shownMemberId(policy, member), null);
  };
}

/**
 * What the outbox's sweep writes to the log: a run that failed, an outbox
 * set aside. The failure's text shows the members the error carries (the
 * outbox's: its delivery marks them, outbox.ts) and the wallet's own member
 * as the policy says, like a request's log line (domain/member-ids.ts).
 */
export function outboxWarnings(logger: Pick<Logger, 'warn'>, policy: MemberIdPolicy): Pick<SweepObservers, 'onError' | 'onSetAside'> {
  const walletLabel = walletLabelOf(policy);
  return {
    onError: (error) => logger.warn(`Outbox sweep failed, trying again at its next run: ${describeError(error, policy)}`),
    onSetAside: ({ walletId, failures, retryAt, error }) => {
      const wallet = walletLabel(walletId);
      const member = memberOfWalletId(walletId);
      logger.warn(
        { wallet, failures, retryAt: retryAt.toISOString() },
        `Outbox of wallet ${wallet} set aside after ${failures} failed deliveries, taken again at ${retryAt.toISOString()}: ${describeError(error, policy, member === null ? [] : [member])}`,
      );
    },
  };
}

/**
 * Everything a process builds on its store, by what the store can do: the
 * services, with the caches a fleet keeps when processes share the store;
 * the outbox's sweep when it has one (stopped by the store's close); the
 * fleet's rate-limit count when it keeps one (closed before the store: it
 * gives back its tokens); its liveness when it reports one. main's own
 * wiring; tests that watch a store's client build their processes with it
 * too.
 */
export function depsOf(
  store: ServingStore,
  config: Pick<AppConfig, 'walletLimits' | 'rateLimitPerMinute'> & Partial<Pick<AppConfig, 'maxEndedSessions'>>,
  logger: Logger,
  /** `memberIds`: how its log lines show members (default: not at all). */
  observers: { metrics?: Metrics; tracing?: Tracing; memberIds?: MemberIdPolicy } = {},
  /** Milliseconds of the monotonic clock its caches and session state are timed on (tests); default `performance.now`. */
  monotonic?: () => number,
): RuntimeDeps {
  const { metrics, tracing } = observers;
  // The services' store calls are timed and traced; seeding and readiness pings are not.
  const timed = metrics ? observedStore(store, (method, seconds, failure) => metrics.observeStoreCall(method, seconds, failure)) : store;
  const services = createServices({
    store: tracing ? tracing.traceStore(timed) : timed,
    clock: systemClock,
    walletLimits: config.walletLimits,
    ...(config.maxEndedSessions !== undefined && { maxEndedSessions: config.maxEndedSessions }),
    listingVersion: () => store.voucherDefinitionsVersion(),
    ...(monotonic && { now: monotonic }),
    // Processes that share the store (they count a key's requests together on it) keep what they read a while.
    ...(sharesQuota(store) && { credentialCaching: fleetCredentialCaching }),
    ...(metrics && {
      onPointsMoved: (reserved: number, returned: number) => metrics.pointsMoved(reserved, returned),
      onCacheLookup: (cache: string, hit: boolean) => metrics.cacheLookup(cache, hit),
    }),
  });
  if (hasOutbox(store)) {
    store.outbox.start({
      ...outboxWarnings(logger, observers.memberIds ?? noMemberIds),
      ...(metrics && { onRun: (report) => metrics.outboxBacklog(report.pending, report.oldestPendingAt) }),
    });
  }
  const liveness: Liveness | undefined = reportsLiveness(store) ? () => store.liveness() : undefined;
  const common = { services, store, ...(metrics && { metrics }), ...(liveness && { liveness }) };
  if (!sharesQuota(store) || config.rateLimitPerMinute <= 0) return common;
  // The fleet shares one count per key, in blocks claimed from the store and given back unspent (block-quota.ts).
  const counter = new BlockQuotaCounter({ limit: config.rateLimitPerMinute, claim: store.claimQuota, giveBack: store.returnQuota });
  counter.start();
  metrics?.watchRateLimit(() => counter.countingAlone);
  // When the process stops, the counter gives back its tokens while the store's client is still open.
  const lifecycle: StoreLifecycle = {
    ping: () => store.ping(),
    close: async () => {
      await counter.close();
      await store.close();
    },
  };
  return { ...common, store: lifecycle, requestCounter: tracing ? tracing.traceRequestCounter(counter) : counter };
}

/**
 * A failure's message for the log: never a stack trace or a document (the
 * MongoDB adapter lets no document value out in an error), and the members
 * it carries, and `memberIds`, as the policy shows members.
 */
function describeError(error: unknown, policy: MemberIdPolicy, memberIds: readonly string[] = []): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return memberIdScrubber(policy, [...memberIdsOf(error), ...memberIds])(text);
}

/**
 * The store `config` selects. MongoDB is seeded only when SEED_FILE asks; the
 * embedded store starts with SEED_FILE or the shipped demo fixture. A failure
 * after connecting closes the store before rethrowing.
 */
async function buildStore(config: AppConfig, logger: Logger, metrics: Metrics | undefined): Promise<ServingStore> {
  const seedFile = config.seedFile ?? (config.mongo ? null : demoFixturePath);
  // Read and validate the fixture before connecting: a bad fixture stops the start cheaply.
  const fixture = seedFile ? await readFixtureFile(seedFile) : null;
  const store = config.mongo
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
          ...(metrics && { onCommand: (event) => metrics.mongoCommand(commandLabels(event)) }),
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
