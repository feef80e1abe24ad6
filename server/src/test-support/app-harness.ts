/**
 * The one way tests start the app: `startTestApp` runs main's own start-up
 * (`startServer`: the spec loaded once, createApp, the HTTP server, graceful
 * stop) in this process, on a port of its own, every response validated
 * against the spec unless the test says otherwise. What it runs on:
 * - fake services (handler tests);
 * - a store (the embedded one by default) loaded from a fixture, with the
 *   real services on it (integration, reliability and contract tests);
 * - main's own dependencies from an environment (`env`: metrics, fleets of
 *   processes on one MongoDB, the browser's CORS).
 */
import { buildDeps, type BuildDeps, type RuntimeDeps } from '../composition';
import { loadConfig, type AppConfig } from '../config';
import { createLogger } from '../logger';
import type { Clock } from '../domain/clock';
import type { WalletLimits } from '../domain/limits';
import { createServices, type ServiceDeps } from '../features';
import { startServer, type RunningServer } from '../main';
import { loadFixture } from '../features/load/load-fixture';
import { parseFixture } from '../features/load/parse-fixture';
import { MemoryStore } from '../store/memory/memory-store';
import { hasOutbox, type Store } from '../store/port';
import { apiClient, send, type ApiClient, type SendInit, type TestResponse } from './api-client';

export interface TestAppOptions {
  /** Loaded into the store before the app starts. */
  fixture?: unknown;
  /** The store (default: a new embedded one on the app's clock). Closed by `close()`. */
  store?: Store;
  /** Between the services and the store: tests that watch, delay or fail its calls. `/readyz` pings it too. */
  wrapStore?: (store: Store, clock: TestClock) => Store;
  /** Epoch milliseconds a fixed clock starts at (it moves with `advance` only); absent: the real time, plus what `advance` added. */
  startAt?: number;
  /** A clock of the test's own instead (then `advance` is the test's business). */
  clock?: Clock;
  walletLimits?: WalletLimits;
  /** Keep API keys and sessions for a moment, as processes sharing a database do (`fleetCredentialCaching`), on the harness's monotonic clock. */
  credentialCaching?: ServiceDeps['credentialCaching'];
  /** Processes over the one store, each with its own services, as a fleet's would be (default 1). */
  instances?: number;
  /**
   * main's own wiring instead: each instance builds its dependencies from
   * this environment with `build` (default `buildDeps`: the store it names,
   * its caches, metrics and rate limit), as `npm start` would.
   */
  env?: Record<string, string>;
  build?: BuildDeps;
  /**
   * Dependencies of the test's own (fake services, or main's on a store the
   * test built), for one instance: no store is built or loaded; stopping
   * closes `deps.store`.
   */
  deps?: RuntimeDeps;
  /** Over the test defaults: no rate limits (of keys, sessions, refusals per address), the default body limit. */
  config?: Partial<AppConfig>;
  /** Default true. */
  validateResponses?: boolean;
  /** Receives every log line; absent: the lines are parsed into `logs`, up to `maxKeptLogLines`. */
  log?: (line: string) => void;
  /** The key of the member hashes in logs (LOG_MEMBER_IDS=hashed), with a fixture's store; absent: one of the app's own. */
  logKey?: Uint8Array;
}

export interface TestClock {
  now: Clock;
  /** Milliseconds of the processes' monotonic clock (how old what they read is), moved by `advance` too. */
  monotonic: () => number;
  /** Moves the harness's own clock (not one the test gave), and the monotonic one. */
  advance(seconds: number): void;
}

export interface TestApp extends TestClock {
  /** The first instance's `http://127.0.0.1:port`. */
  baseUrl: string;
  urls: string[];
  /** Each instance's `/metrics` (`http://127.0.0.1:port/metrics`, on its own port), with METRICS on; empty otherwise. */
  metricsUrls: string[];
  running: RunningServer[];
  /** The store under the wrappers (none with `deps` or `env`). */
  store: Store;
  api: ApiClient;
  /** Every line logged, parsed (unless `log` was given). */
  logs: Array<Record<string, unknown>>;
  send(method: string, path: string, init?: SendInit): Promise<TestResponse>;
  /** Waits for what answers left to do (the store's outbox), before reading the audit trail. */
  settled(): Promise<void>;
  /** Stops every instance (gracefully), then closes the store. */
  close(): Promise<void>;
}

/** A test that logs more than this keeps the first lines only (a long run should pass `log`). */
const maxKeptLogLines = 10_000;

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  refuseUnusedOptions(options);
  const clock = testClock(options);
  // No limits unless the test asks: a test's requests come from one address, at a pace no client keeps.
  const env = options.env ?? { RATE_LIMIT_PER_MINUTE: '0', SESSION_RATE_LIMIT_PER_MINUTE: '0', AUTH_FAILURES_PER_MINUTE: '0', METRICS: 'off' };
  // Any free port for the API and for the metrics (with METRICS on), as every process of a test needs its own.
  const config: AppConfig = { ...loadConfig({ PORT: '0', METRICS_PORT: '0', ...env }), ...options.config };
  const logs: Array<Record<string, unknown>> = [];
  const write = options.log ?? ((line: string) => void (logs.length < maxKeptLogLines && logs.push(JSON.parse(line))));
  // main's own logger, to the test's `write`.
  const logger = createLogger({ ...config, logLevel: options.env ? config.logLevel : 'info' }, { write });
  const store = options.deps || options.env ? null : await loadedStore(options, clock);
  const served = store && options.wrapStore ? options.wrapStore(store, clock) : store;
  const build: BuildDeps = options.env ? (options.build ?? buildDeps) : async () => options.deps ?? instanceDeps(options, config, served!, clock);

  const running: RunningServer[] = [];
  try {
    for (let i = 0; i < (options.instances ?? 1); i++) {
      running.push(await startServer(config, logger, build, { validateResponses: options.validateResponses ?? true }));
    }
  } catch (error) {
    await Promise.all(running.map((r) => r.stop()));
    await store?.close();
    throw error;
  }
  const urls = running.map((r) => loopbackUrl(r.url));
  const baseUrl = urls[0]!;
  return {
    ...clock,
    baseUrl,
    urls,
    metricsUrls: running.flatMap((r) => (r.metricsUrl ? [`${loopbackUrl(r.metricsUrl)}/metrics`] : [])),
    running,
    store: store ?? noStore(),
    api: apiClient(baseUrl),
    logs,
    send: (method, path, init) => send(baseUrl, method, path, init),
    // Only a store with an outbox (MongoDB's) leaves work after an answer; the embedded one leaves none.
    settled: async () => (store && hasOutbox(store) ? store.outbox.settle() : undefined),
    close: async () => {
      await Promise.all(running.map((r) => r.stop()));
      await store?.close();
    },
  };
}

/** With `deps` or `env` the app builds no store here: a store option given with them would be ignored, so it is a mistake. */
function refuseUnusedOptions(options: TestAppOptions): void {
  const storeOptions = (['fixture', 'store', 'wrapStore', 'walletLimits', 'credentialCaching', 'startAt', 'clock', 'logKey'] as const).filter((name) => options[name] !== undefined);
  if ((options.deps || options.env) && storeOptions.length > 0) {
    throw new Error(`startTestApp: ${storeOptions.join(', ')} would be ignored with ${options.deps ? 'deps' : 'env'}`);
  }
}

function testClock(options: TestAppOptions): TestClock {
  let offsetMs = 0;
  const fixedStart = options.startAt;
  const own: Clock = fixedStart === undefined ? () => new Date(Date.now() + offsetMs) : () => new Date(fixedStart + offsetMs);
  return {
    now: options.clock ?? own,
    monotonic: () => performance.now() + offsetMs,
    advance: (seconds) => {
      offsetMs += seconds * 1000;
    },
  };
}

async function loadedStore(options: TestAppOptions, clock: TestClock): Promise<Store> {
  const store = options.store ?? new MemoryStore({ clock: clock.now });
  try {
    if (options.fixture !== undefined) await loadFixture(store, parseFixture(options.fixture), clock.now(), options.walletLimits);
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * One instance's dependencies: its own services (as a separate process would
 * have), the shared store pinged by `/readyz` but closed once, by the harness.
 */
function instanceDeps(options: TestAppOptions, config: AppConfig, store: Store, clock: TestClock): RuntimeDeps {
  return {
    services: createServices({
      store,
      clock: clock.now,
      now: clock.monotonic,
      maxEndedSessions: config.maxEndedSessions,
      ...(options.walletLimits && { walletLimits: options.walletLimits }),
      ...(options.credentialCaching && { credentialCaching: options.credentialCaching }),
    }),
    store: { ping: () => store.ping(), close: async () => undefined },
    ...(options.logKey && { logKey: options.logKey }),
  };
}

/** The server listens on every interface; tests call it on the loopback. */
export function loopbackUrl(url: string): string {
  return url.replace(/^http:\/\/(\[::\]|0\.0\.0\.0|\[::1\])/, 'http://127.0.0.1');
}

/** With the test's own `deps` or main's there is no store here: reading one is a mistake of the test. */
function noStore(): Store {
  return new Proxy({} as Store, {
    get: (_target, method) => {
      throw new Error(`the app runs on fake services: it has no store (store.${String(method)})`);
    },
  });
}
