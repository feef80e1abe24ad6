/**
 * The server's configuration: read from the environment once, at start-up,
 * validated, and frozen. Nothing else in the server reads `process.env`.
 *
 * An empty value counts as unset (so `MONGODB_URI=` in a compose file means
 * "no MongoDB"). A value that is set but invalid stops the start with an error
 * naming the variable.
 *
 * | variable                            | default  | meaning                                                                 |
 * |-------------------------------------|----------|-------------------------------------------------------------------------|
 * | PORT                                | 3000     | TCP port to listen on (0: any free port)                                |
 * | MONGODB_URI                         | (unset)  | `mongodb://` or `mongodb+srv://` URI; unset: embedded in-process store  |
 * | MONGODB_DB                          | loyalty  | database name in that MongoDB                                           |
 * | MONGODB_SERVER_SELECTION_TIMEOUT_MS | 5000     | how long the driver looks for a server before an operation fails        |
 * | MONGODB_SOCKET_TIMEOUT_MS           | 10000    | how long a MongoDB socket may stay silent before it is closed           |
 * | SEED_FILE                           | (unset)  | fixture JSON loaded into the store at start-up                          |
 * | RATE_LIMIT_PER_MINUTE               | 6000     | requests per client key per minute, across every process on one MongoDB |
 * |                                     |          | (in the process on the embedded store); 0 turns rate limiting off       |
 * | LOG_LEVEL                           | info     | pino level: fatal, error, warn, info, debug, trace or silent            |
 * | BODY_LIMIT_BYTES                    | 16384    | largest accepted request body; larger gives 413                         |
 * | SHUTDOWN_GRACE_MS                   | 10000    | on SIGTERM/SIGINT, how long in-flight requests may take before the      |
 * |                                     |          | remaining connections are cut                                           |
 * | MAX_ACTIVE_RESERVATIONS_PER_WALLET  | 1000     | live reservations one wallet (member or household) may hold, 1 to 5000  |
 * | METRICS                             | on       | `on`: Prometheus text on `GET /metrics`; `off`: no metrics              |
 * | METRICS_PORT                        | (unset)  | serve `/metrics` on this port of its own; unset: on PORT, beside the API|
 * | TRUST_PROXY                         | false    | `true`/`false`, or the number of proxy hops in front of the server      |
 */

import { defaultWalletLimits, type WalletLimits } from './domain/limits';

/**
 * A whole save of a wallet (a fixture, a wallet rid of expired reservations)
 * carries the reservations it writes in the wallet's MongoDB document until
 * they are copied out, and a document holds 16 MiB at most. A reservation
 * takes about 300 bytes, and about 2 KB when eight members with the longest
 * ids the spec allows fund it: 5,000 of those still fit.
 */
const maxWalletLimit = 5000;

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

export interface MongoConfig {
  /** Holds credentials: never log it (see `describeMongoTarget`). */
  readonly uri: string;
  readonly dbName: string;
  readonly serverSelectionTimeoutMs: number;
  readonly socketTimeoutMs: number;
}

export interface AppConfig {
  readonly port: number;
  /** Null: use the embedded in-process store. */
  readonly mongo: MongoConfig | null;
  readonly seedFile: string | null;
  /** 0: no rate limit. */
  readonly rateLimitPerMinute: number;
  readonly logLevel: LogLevel;
  readonly bodyLimitBytes: number;
  readonly shutdownGraceMs: number;
  /** Express's `trust proxy`: a boolean or a number of hops. */
  readonly trustProxy: boolean | number;
  readonly walletLimits: WalletLimits;
  /** Null: no metrics. */
  readonly metrics: MetricsConfig | null;
}

export interface MetricsConfig {
  /** Null: `/metrics` on the API's port; otherwise a listener of its own (0: any free port). */
  readonly port: number | null;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Thrown by `loadConfig`; its message lists every invalid variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the configuration; throws `ConfigError` naming each invalid variable. */
export function loadConfig(env: Env = process.env): AppConfig {
  const reader = new EnvReader(env);
  const mongoUri = reader.mongoUri('MONGODB_URI');
  const mongoSettings = {
    dbName: reader.string('MONGODB_DB', 'loyalty'),
    serverSelectionTimeoutMs: reader.integer('MONGODB_SERVER_SELECTION_TIMEOUT_MS', 5000, { min: 1 }),
    socketTimeoutMs: reader.integer('MONGODB_SOCKET_TIMEOUT_MS', 10000, { min: 0 }),
  };
  const config: AppConfig = {
    port: reader.integer('PORT', 3000, { min: 0, max: 65535 }),
    mongo: mongoUri === null ? null : Object.freeze({ uri: mongoUri, ...mongoSettings }),
    seedFile: reader.optional('SEED_FILE'),
    rateLimitPerMinute: reader.integer('RATE_LIMIT_PER_MINUTE', 6000, { min: 0 }),
    logLevel: reader.oneOf('LOG_LEVEL', logLevels, 'info'),
    bodyLimitBytes: reader.integer('BODY_LIMIT_BYTES', 16384, { min: 1 }),
    shutdownGraceMs: reader.integer('SHUTDOWN_GRACE_MS', 10000, { min: 0 }),
    trustProxy: reader.trustProxy('TRUST_PROXY'),
    metrics: metricsConfig(reader),
    walletLimits: Object.freeze({
      maxActiveReservationsPerWallet: reader.integer('MAX_ACTIVE_RESERVATIONS_PER_WALLET', defaultWalletLimits.maxActiveReservationsPerWallet, {
        min: 1,
        max: maxWalletLimit,
      }),
    }),
  };
  const metricsPort = config.metrics?.port;
  if (metricsPort && metricsPort === config.port) reader.problems.push(`METRICS_PORT must differ from PORT (both ${metricsPort}); unset it to serve /metrics on PORT`);
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return Object.freeze(config);
}

function metricsConfig(reader: EnvReader): MetricsConfig | null {
  const enabled = reader.oneOf('METRICS', ['on', 'off'] as const, 'on') === 'on';
  const port = reader.optional('METRICS_PORT') === null ? null : reader.integer('METRICS_PORT', 0, { min: 0, max: 65535 });
  return enabled ? Object.freeze({ port }) : null;
}

/**
 * Where a MongoDB URI points, without credentials or options:
 * `mongodb://user:secret@h1:27017,h2/?replicaSet=rs` gives `h1:27017,h2`.
 * Written by hand because WHATWG `URL` rejects multi-host URIs.
 */
export function describeMongoTarget(mongo: Pick<MongoConfig, 'uri' | 'dbName'>): string {
  const afterScheme = mongo.uri.replace(/^[a-z+]+:\/\//i, '');
  const authority = afterScheme.split(/[/?#]/, 1)[0] ?? '';
  const hosts = authority.slice(authority.lastIndexOf('@') + 1);
  return `${hosts}/${mongo.dbName}`;
}

/** Collects problems instead of throwing at the first, so one start reports them all. */
class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  optional(name: string): string | null {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? null : value;
  }

  string(name: string, fallback: string): string {
    return this.optional(name) ?? fallback;
  }

  integer(name: string, fallback: number, range: { min: number; max?: number }): number {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    const max = range.max ?? Number.MAX_SAFE_INTEGER;
    if (Number.isSafeInteger(value) && value >= range.min && value <= max) return value;
    const bounds = range.max === undefined ? `>= ${range.min}` : `from ${range.min} to ${range.max}`;
    return this.reject(name, raw, `an integer ${bounds}`, fallback);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    const match = allowed.find((candidate) => candidate === raw);
    return match ?? this.reject(name, raw, `one of ${allowed.join(', ')}`, fallback);
  }

  mongoUri(name: string): string | null {
    const raw = this.optional(name);
    if (raw === null || /^mongodb(\+srv)?:\/\/[^/?#]+/.test(raw)) return raw;
    // Do not echo the value: it may hold a password.
    this.problems.push(`${name} must be a mongodb:// or mongodb+srv:// URI with a host`);
    return null;
  }

  trustProxy(name: string): boolean | number {
    const raw = this.optional(name);
    if (raw === null || raw === 'false') return false;
    if (raw === 'true') return true;
    if (/^\d+$/.test(raw)) return Number(raw);
    return this.reject(name, raw, 'true, false or a number of proxy hops', false);
  }

  private reject<T>(name: string, raw: string, expected: string, fallback: T): T {
    this.problems.push(`${name} must be ${expected} (got ${JSON.stringify(raw)})`);
    return fallback;
  }
}
