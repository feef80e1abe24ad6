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
 * | AUDIT_RETENTION_DAYS                | (unset)  | days the audit trail keeps an entry, 1 to 36500 (a TTL index that       |
 * |                                     |          | `loyalty-admin indexes` manages); unset: kept for ever                  |
 * | SEED_FILE                           | (unset)  | fixture JSON loaded into the store at start-up                          |
 * | RATE_LIMIT_PER_MINUTE               | 6000     | requests per client key per minute, across every process on one MongoDB |
 * |                                     |          | (in the process on the embedded store); 0 turns rate limiting off       |
 * | LOG_LEVEL                           | info     | pino level: fatal, error, warn, info, debug, trace or silent            |
 * | BODY_LIMIT_BYTES                    | 16384    | largest accepted request body; larger gives 413                         |
 * | SHUTDOWN_DELAY_MS                   | 0        | on SIGTERM/SIGINT, how long the server keeps accepting and answering    |
 * |                                     |          | after /readyz turns 503, before it drains, 0 to 300000 (the image: 5000)|
 * | SHUTDOWN_GRACE_MS                   | 10000    | on SIGTERM/SIGINT, how long in-flight requests may take before the      |
 * |                                     |          | remaining connections are cut                                           |
 * | MAX_ACTIVE_RESERVATIONS_PER_WALLET  | 1000     | live reservations one wallet (member or household) may hold, 1 to 5000  |
 * | METRICS                             | on       | `on`: Prometheus text on `GET /metrics`; `off`: no metrics              |
 * | METRICS_PORT                        | (unset)  | serve `/metrics` on this port of its own; unset: on PORT, beside the API|
 * | TRUST_PROXY                         | false    | `true`/`false`, or the number of proxy hops in front of the server      |
 * | CORS_ORIGINS                        | (unset)  | comma-separated exact origins (`https://app.example.com`) whose pages   |
 * |                                     |          | may call the API (see http/cors.ts); unset: no CORS headers at all      |
 *
 * And the OpenTelemetry variables that decide whether the server traces, and
 * how (`tracingConfig` below; README.md, Tracing). They are read here, and in
 * `tracing.ts` (the same function), which must decide before anything else
 * loads. Once tracing is on, the OpenTelemetry SDK reads the other `OTEL_*`
 * variables itself (service name, headers, timeouts, batch sizes).
 *
 * | OTEL_SDK_DISABLED                   | false    | `true`: no tracing, whatever else is set                                |
 * | OTEL_TRACES_EXPORTER                | (unset)  | `otlp`: on; `none`: off; unset: on when an endpoint below is set        |
 * | OTEL_EXPORTER_OTLP_ENDPOINT         | (unset)  | OTLP/HTTP base URL (spans to `<it>/v1/traces`); turns tracing on        |
 * | OTEL_EXPORTER_OTLP_TRACES_ENDPOINT  | (unset)  | the spans' full URL, used as it is; wins; turns tracing on              |
 * | OTEL_EXPORTER_OTLP[_TRACES]_PROTOCOL| http/protobuf | `http/protobuf` or `http/json` (the traces one wins)               |
 * | OTEL_TRACES_SAMPLER[_ARG]           | parentbased_always_on | a standard sampler; its ratio from 0 to 1                  |
 */

import { defaultWalletLimits, type WalletLimits } from './domain/limits';

/**
 * A whole save of a wallet (a fixture, a wallet rid of expired reservations)
 * carries the reservations it writes in the wallet's MongoDB document until
 * they are delivered, and a document holds 16 MiB at most. A reservation
 * takes about 300 bytes, and about 2 KB when eight members with the longest
 * ids the spec allows fund it: 5,000 of those still fit.
 */
const maxWalletLimit = 5000;

/**
 * A stop that waits longer than this is a mistake of configuration: no load
 * balancer needs minutes to stop routing to a process.
 */
const maxShutdownDelayMs = 300_000;

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

export interface MongoConfig {
  /** Holds credentials: never log it (see `describeMongoTarget`). */
  readonly uri: string;
  readonly dbName: string;
  readonly serverSelectionTimeoutMs: number;
  readonly socketTimeoutMs: number;
  /** Days an audit entry is kept (a TTL index `loyalty-admin indexes` manages); null: for ever. */
  readonly auditRetentionDays: number | null;
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
  /** Not ready but still serving, after a stop signal and before the drain (load balancers stop routing meanwhile). */
  readonly shutdownDelayMs: number;
  readonly shutdownGraceMs: number;
  /** Express's `trust proxy`: a boolean or a number of hops. */
  readonly trustProxy: boolean | number;
  /** Origins whose pages may call the API (CORS), exactly as browsers send them; empty: CORS off. */
  readonly corsOrigins: readonly string[];
  readonly walletLimits: WalletLimits;
  /** Null: no metrics. */
  readonly metrics: MetricsConfig | null;
  /** Null: no tracing (nothing of OpenTelemetry is loaded). */
  readonly tracing: TracingConfig | null;
}

export interface MetricsConfig {
  /** Null: `/metrics` on the API's port; otherwise a listener of its own (0: any free port). */
  readonly port: number | null;
}

/** The OTLP encodings over HTTP the server can send spans in. gRPC is not one: it would take a gRPC stack into the server. */
export const otlpProtocols = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof otlpProtocols)[number];

/** The samplers OTEL_TRACES_SAMPLER may name (the OpenTelemetry SDK builds the one named). */
export const traceSamplers = ['parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio', 'always_on', 'always_off', 'traceidratio'] as const;

export interface TracingConfig {
  /** How spans are sent: OTLP over HTTP, as protobuf or as JSON. */
  readonly protocol: OtlpProtocol;
  /** Where they are sent, as the exporter resolves the endpoint variables; without credentials or query (it is logged). */
  readonly endpoint: string;
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
    auditRetentionDays: reader.optional('AUDIT_RETENTION_DAYS') === null ? null : reader.integer('AUDIT_RETENTION_DAYS', 0, { min: 1, max: 36_500 }),
  };
  const config: AppConfig = {
    port: reader.integer('PORT', 3000, { min: 0, max: 65535 }),
    mongo: mongoUri === null ? null : Object.freeze({ uri: mongoUri, ...mongoSettings }),
    seedFile: reader.optional('SEED_FILE'),
    rateLimitPerMinute: reader.integer('RATE_LIMIT_PER_MINUTE', 6000, { min: 0 }),
    logLevel: reader.oneOf('LOG_LEVEL', logLevels, 'info'),
    bodyLimitBytes: reader.integer('BODY_LIMIT_BYTES', 16384, { min: 1 }),
    shutdownDelayMs: reader.integer('SHUTDOWN_DELAY_MS', 0, { min: 0, max: maxShutdownDelayMs }),
    shutdownGraceMs: reader.integer('SHUTDOWN_GRACE_MS', 10000, { min: 0 }),
    trustProxy: reader.trustProxy('TRUST_PROXY'),
    corsOrigins: Object.freeze(reader.origins('CORS_ORIGINS')),
    metrics: metricsConfig(reader),
    tracing: tracingConfig(reader),
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

/**
 * Whether the server traces, for `server/src/tracing.ts`, which decides it
 * before anything else loads. Invalid variables leave tracing off here:
 * `loadConfig` reports them, and the start stops.
 */
export function loadTracingConfig(env: Env = process.env): { tracing: TracingConfig | null; problems: string[] } {
  const reader = new EnvReader(env);
  const tracing = tracingConfig(reader);
  return reader.problems.length > 0 ? { tracing: null, problems: reader.problems } : { tracing, problems: [] };
}

/** Where OTLP/HTTP receivers listen by default (the OpenTelemetry specification's default). */
const defaultTracesEndpoint = 'http://localhost:4318/v1/traces';

/**
 * Tracing is on when OTEL_TRACES_EXPORTER is `otlp`, or when it is unset and
 * an OTLP endpoint is (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none turn it off whatever else is set. The
 * OpenTelemetry specification's default exporter is `otlp`; this server's
 * is none, so that a server without OTEL_* variables loads nothing of
 * OpenTelemetry. Only when it is on are the other variables checked.
 */
function tracingConfig(reader: EnvReader): TracingConfig | null {
  // The specification's boolean: only `true` (any case) is true.
  if (reader.optional('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const exporter = reader.optional('OTEL_TRACES_EXPORTER');
  const tracesEndpoint = reader.optional('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = reader.optional('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (exporter === 'none') return null;
  if (exporter !== null && exporter !== 'otlp') {
    reader.problems.push(`OTEL_TRACES_EXPORTER must be otlp or none (got ${JSON.stringify(exporter)})`);
    return null;
  }
  if (exporter === null && tracesEndpoint === null && endpoint === null) return null;

  // The signal's own variable wins over the general one, which is read only when needed.
  const protocol = reader.optional('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? reader.oneOf('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', otlpProtocols, 'http/protobuf')
    : reader.oneOf('OTEL_EXPORTER_OTLP_PROTOCOL', otlpProtocols, 'http/protobuf');
  const sampler = reader.oneOf('OTEL_TRACES_SAMPLER', traceSamplers, 'parentbased_always_on');
  if (sampler.endsWith('traceidratio')) reader.ratio('OTEL_TRACES_SAMPLER_ARG');
  const resolved = tracesEndpoint
    ? reader.httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint)
    : endpoint
      ? reader.httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', `${endpoint.replace(/\/+$/, '')}/v1/traces`)
      : new URL(defaultTracesEndpoint);
  return resolved && Object.freeze({ protocol, endpoint: withoutCredentials(resolved) });
}

/** A URL fit for a log line: no user, password or query (where an API key may hide). */
function withoutCredentials(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  shown.search = '';
  shown.hash = '';
  return shown.href;
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

/** Why `entry` is not an origin as browsers serialise it, or null when it is one. */
function originProblem(entry: string): string | null {
  if (entry === '') return 'an empty entry';
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return `${JSON.stringify(entry)} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${JSON.stringify(entry)} is not http:// or https://`;
  if (url.origin !== entry) return `${JSON.stringify(entry)} is not written as browsers send it (${url.origin})`;
  return null;
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

  /** A number from 0 to 1 (a sampling ratio); unset is fine (the SDK's default, 1). */
  ratio(name: string): void {
    const raw = this.optional(name);
    if (raw === null) return;
    const value = Number(raw);
    if (!(Number.isFinite(value) && value >= 0 && value <= 1)) this.reject(name, raw, 'a number from 0 to 1', undefined);
  }

  /** An http: or https: URL, or null (with a problem). The value is not echoed: it may hold credentials. */
  httpUrl(name: string, raw: string): URL | null {
    try {
      const url = new URL(raw);
      if (url.protocol === 'http:' || url.protocol === 'https:') return url;
    } catch {
      // reported below
    }
    this.problems.push(`${name} must be an http:// or https:// URL`);
    return null;
  }

  /**
   * A comma-separated list of origins, each written exactly as a browser
   * sends it in `Origin` (scheme, lower-case host, port only when not the
   * default; no path, no trailing slash), since the API compares them as
   * strings. Anything else is refused with the form that would match.
   */
  origins(name: string): string[] {
    const raw = this.optional(name);
    if (raw === null) return [];
    const entries = raw.split(',').map((entry) => entry.trim());
    const problems = entries.map(originProblem).filter((problem): problem is string => problem !== null);
    if (problems.length > 0) return this.reject(name, raw, `a comma-separated list of origins such as https://app.example.com: ${problems.join('; ')}`, []);
    return [...new Set(entries)];
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
