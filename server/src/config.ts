/**
 * The server's configuration: read from the environment once, at start-up,
 * validated, and frozen. Nothing else in the server reads `process.env`.
 *
 * Each variable is defined once, below, as data: its name, its default, the
 * values it takes and what it means, with how it is read. `loadConfig` reads
 * through those definitions, and the operators' reference
 * (docs/configuration.md) is generated from them (`npm run docs:config`;
 * `npm test` fails while it is stale), so the two cannot disagree.
 *
 * An empty value counts as unset (so `MONGODB_URI=` in a compose file means
 * "no MongoDB"). A value that is set but invalid stops the start with an error
 * naming the variable.
 *
 * The OpenTelemetry variables defined here decide whether the server traces,
 * and how; they are read here, and in `tracing.ts` (the same function), which
 * must decide before anything else loads. Once tracing is on, the
 * OpenTelemetry SDK reads the other `OTEL_*` variables itself (headers,
 * timeouts, batch sizes): docs/observability.md lists them.
 */

import { defaultWalletLimits, type WalletLimits } from './domain/limits';
import { memberIdModes, type MemberIdMode } from './domain/member-ids';
import { originProblem } from './domain/origins';
import { defaultMaxEndedSessions } from './domain/limits';

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
  /** False: a start without MongoDB fails rather than serve the embedded store's demo data (the Docker image). */
  readonly allowEmbeddedStore: boolean;
  readonly seedFile: string | null;
  /** Requests per API key and minute; 0: no limit. */
  readonly rateLimitPerMinute: number;
  /** Requests per session and minute with a publishable key, in each process; 0: no limit. */
  readonly sessionRateLimitPerMinute: number;
  /** Requests refused for their credentials per client address and minute before its lookups are limited, in each process; 0: no limit. */
  readonly authFailuresPerMinute: number;
  /** Ended sessions (sign-outs) the deployment keeps at most, until their tokens expire; a sign-out past it is answered 503. */
  readonly maxEndedSessions: number;
  readonly logLevel: LogLevel;
  /** How a member's id appears in logs and spans. */
  readonly logMemberIds: MemberIdMode;
  /** The service's name on every log line and, with tracing, its `service.name`. */
  readonly serviceName: string;
  readonly bodyLimitBytes: number;
  /** Not ready but still serving, after a stop signal and before the drain (load balancers stop routing meanwhile). */
  readonly shutdownDelayMs: number;
  readonly shutdownGraceMs: number;
  /** Express's `trust proxy`: a boolean or a number of hops. */
  readonly trustProxy: boolean | number;
  /** Origins whose pages may call the API (CORS) besides those of live publishable keys, exactly as browsers send them. */
  readonly corsOrigins: readonly string[];
  readonly walletLimits: WalletLimits;
  /** Null: no metrics. */
  readonly metrics: MetricsConfig | null;
  /** Null: no tracing (nothing of OpenTelemetry is loaded). */
  readonly tracing: TracingConfig | null;
}

export interface MetricsConfig {
  /** The port of `/metrics`, a listener of its own, never the API's (0: any free port). */
  readonly port: number;
}

/**
 * Where `/metrics` listens unless METRICS_PORT says otherwise: the port of
 * OpenTelemetry's Prometheus exporter, which scrape configurations expect.
 */
export const defaultMetricsPort = 9464;

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
  /** `service.name`, as the logs' `service`. */
  readonly serviceName: string;
  /** How the spans show a member's id, as the logs do. */
  readonly memberIds: MemberIdMode;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The parts of the reference: each variable belongs to one. */
export const configSections = {
  server: 'The server',
  store: 'The store (MongoDB)',
  limits: 'Limits',
  logs: 'Logs',
  metrics: 'Metrics',
  tracing: 'Tracing',
} as const;

/** One environment variable, as data: what the reference says of it, and how it is read. */
export interface ConfigVariable<T = unknown> {
  readonly name: string;
  readonly section: keyof typeof configSections;
  /** The value when unset, as the reference shows it; null: unset means "none" (the meaning says what then). */
  readonly default: string | null;
  /** The values it takes, as the reference and the start-up error say them. */
  readonly values: string;
  /** What it does (Markdown). */
  readonly meaning: string;
  read(reader: EnvReader): T;
}

type Doc = Pick<ConfigVariable, 'section' | 'meaning'>;
interface Range {
  min: number;
  max?: number;
}

function integerValues(range: Range): string {
  return range.max === undefined ? `an integer >= ${range.min}` : `an integer from ${range.min} to ${range.max}`;
}

function integer(name: string, fallback: number, range: Range, doc: Doc): ConfigVariable<number> {
  return { name, ...doc, default: String(fallback), values: integerValues(range), read: (reader) => reader.integer(name, fallback, range) };
}

function optionalInteger(name: string, range: Range, doc: Doc): ConfigVariable<number | null> {
  return { name, ...doc, default: null, values: integerValues(range), read: (reader) => (reader.optional(name) === null ? null : reader.integer(name, 0, range)) };
}

function oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T, doc: Doc): ConfigVariable<T> {
  return { name, ...doc, default: fallback, values: `one of ${allowed.join(', ')}`, read: (reader) => reader.oneOf(name, allowed, fallback) };
}

function text(name: string, fallback: string, values: string, doc: Doc): ConfigVariable<string> {
  return { name, ...doc, default: fallback, values, read: (reader) => reader.string(name, fallback) };
}

function optionalText(name: string, values: string, doc: Doc): ConfigVariable<string | null> {
  return { name, ...doc, default: null, values, read: (reader) => reader.optional(name) };
}

/** A variable read its own way: `read` is given the variable's name, written once, here. */
function variable<T>(name: string, described: Omit<ConfigVariable, 'name' | 'read'>, read: (reader: EnvReader, name: string) => T): ConfigVariable<T> {
  return { name, ...described, read: (reader) => read(reader, name) };
}

/**
 * A whole save of a wallet (a fixture, a wallet rid of expired reservations)
 * carries the reservations it writes in the wallet's MongoDB document until
 * they are delivered, and a document holds 16 MiB at most. A reservation
 * takes about 300 bytes, and about 2 KB when eight members with the longest
 * ids the spec allows fund it: 5,000 of those still fit.
 */
const maxWalletLimit = 5000;

/** Every variable the server reads, in the reference's order. */
export const configVariables = {
  port: integer('PORT', 3000, { min: 0, max: 65535 }, { section: 'server', meaning: 'TCP port the API listens on (`0`: any free port).' }),
  seedFile: optionalText('SEED_FILE', 'a file path', {
    section: 'server',
    meaning:
      'Fixture JSON (format: `server/src/features/load/fixture-schema.ts`) loaded at start-up, replacing the records it names; a bad fixture stops the start with the offending path. Unset: the embedded store starts with the demo fixture (`server/fixtures/demo.json`), and MongoDB is seeded only when asked.',
  }),
  bodyLimitBytes: integer('BODY_LIMIT_BYTES', 16384, { min: 1 }, { section: 'server', meaning: 'Largest request body; a larger one is answered `413`.' }),
  shutdownDelayMs: integer('SHUTDOWN_DELAY_MS', 0, { min: 0, max: maxShutdownDelayMs }, {
    section: 'server',
    meaning:
      'On SIGTERM or SIGINT, how long the server keeps accepting and answering after `/readyz` turns `503`, before it drains: the time load balancers and Kubernetes Services take to stop sending it connections. The Docker image sets `5000`. See [Deploying on Kubernetes](deploying.md#deploying-on-kubernetes).',
  }),
  shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', 10000, { min: 0 }, {
    section: 'server',
    meaning: 'On SIGTERM or SIGINT, after the delay, how long requests in flight may take before the remaining connections are cut.',
  }),
  trustProxy: variable(
    'TRUST_PROXY',
    {
      section: 'server',
      default: 'false',
      values: 'true, false or a number of proxy hops',
      meaning: "Express's `trust proxy`: whether (or through how many proxies) the client's address is read from `X-Forwarded-For`.",
    },
    (reader, name) => reader.trustProxy(name),
  ),
  corsOrigins: variable(
    'CORS_ORIGINS',
    {
      section: 'server',
      default: null,
      values: 'a comma-separated list of origins such as https://app.example.com',
      meaning:
        "Origins whose pages may read the API's answers besides the origins of the live publishable keys (which need no setting), each exactly as a browser sends it (scheme, lower-case host, port unless the default; no path or trailing slash). It lets a page read answers, never use a key: a publishable key still works only from its own origins. Unset: the keys' origins only. See [Partner web apps](partner-web-apps.md).",
    },
    (reader, name) => reader.origins(name),
  ),

  mongoUri: variable(
    'MONGODB_URI',
    {
      section: 'store',
      default: null,
      values: 'a mongodb:// or mongodb+srv:// URI with a host',
      meaning: 'The MongoDB to use. Unset: the embedded in-process store (said in the first log line), unless `ALLOW_EMBEDDED_STORE=false`. See [MongoDB and the fleet](mongodb.md).',
    },
    (reader, name) => reader.mongoUri(name),
  ),
  allowEmbeddedStore: variable(
    'ALLOW_EMBEDDED_STORE',
    {
      section: 'store',
      default: 'true',
      values: 'true or false',
      meaning:
        "`false`: a start without `MONGODB_URI` fails (exit 1, naming `MONGODB_URI`) instead of serving the embedded store, whose demo data's keys are published. The Docker image sets `false`; `npm start` keeps `true`. See [Deploying](deploying.md#docker).",
    },
    (reader, name) => reader.boolean(name, true),
  ),
  mongoDb: text('MONGODB_DB', 'loyalty', 'a database name', { section: 'store', meaning: 'The database in that MongoDB.' }),
  serverSelectionTimeoutMs: integer('MONGODB_SERVER_SELECTION_TIMEOUT_MS', 5000, { min: 1 }, {
    section: 'store',
    meaning: 'How long the driver looks for a server before an operation fails (the request is then answered `503`).',
  }),
  socketTimeoutMs: integer('MONGODB_SOCKET_TIMEOUT_MS', 10000, { min: 0 }, { section: 'store', meaning: 'How long a MongoDB socket may stay silent before it is closed.' }),
  auditRetentionDays: optionalInteger('AUDIT_RETENTION_DAYS', { min: 1, max: 36_500 }, {
    section: 'store',
    meaning:
      'Days the audit trail keeps an entry, through a TTL index that `loyalty-admin indexes` manages (see [Operating](operating.md)). Unset: kept for ever.',
  }),

  rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', 6000, { min: 0 }, {
    section: 'limits',
    meaning:
      "Requests per API key per minute (each of a client's keys has its own count), counted across every process on one MongoDB (see [the rate limit in a fleet](design/rate-limit.md)), in the process on the embedded store. Only requests whose credentials are accepted count. `0` turns it off.",
  }),
  sessionRateLimitPerMinute: integer('SESSION_RATE_LIMIT_PER_MINUTE', 120, { min: 0 }, {
    section: 'limits',
    meaning:
      "Requests per session per minute with a publishable key (a member's page), besides its key's count, so that one member cannot spend the page key's limit for everyone else. Counted in each process's memory, with no database command: a session whose requests reach N processes gets at most N times this, and its key's count still caps it all. `0` turns it off.",
  }),
  maxEndedSessions: integer('MAX_ENDED_SESSIONS', defaultMaxEndedSessions, { min: 1 }, {
    section: 'limits',
    meaning:
      "Sessions signed out before their expiry that the deployment keeps, each until its token expires, so that its token stays refused: every process holds them all in memory (about 100 bytes each: 20 MB at the default). Size it at the peak sign-outs a second times the longest session lifetime (a client's `sessionTtlSeconds`, at most 86,400). At the bound a sign-out is answered `503` (retry later; the token works until it expires) until ended sessions expire. See [Sessions](operating.md#sessions-and-their-keys).",
  }),
  authFailuresPerMinute: integer('AUTH_FAILURES_PER_MINUTE', 100, { min: 0 }, {
    section: 'limits',
    meaning:
      "Requests one client address (as `TRUST_PROXY` reads it; an IPv6 /64 counts as one) may have refused for their credentials (`401`, `403`) per minute, counted in each process's memory. Past it, its requests that would need an API key or session the process does not know to be looked up are answered `429` with no database command, but for one lookup a second (a partner that rolled its key gets the new one through); credentials the process knows keep working. `0` turns it off.",
  }),
  maxActiveReservationsPerWallet: integer('MAX_ACTIVE_RESERVATIONS_PER_WALLET', defaultWalletLimits.maxActiveReservationsPerWallet, { min: 1, max: maxWalletLimit }, {
    section: 'limits',
    meaning:
      'Live reservations one wallet (a member without a household, or a household) may hold; an offline creation past it is `400` `Too many active reservations`, and a fixture past it stops the start.',
  }),

  logLevel: oneOf('LOG_LEVEL', logLevels, 'info', { section: 'logs', meaning: 'The least severe level written; `debug` or `trace` also adds the stack trace to the message of a failed start.' }),
  logMemberIds: oneOf('LOG_MEMBER_IDS', memberIdModes, 'hashed', {
    section: 'logs',
    meaning:
      "How a member's id appears in log lines and spans: `hashed`, a keyed hash (`loyalty-admin log-hash <correlation id>` gives a member's); `off`, not at all; `plain`, as it is, with the request's URL (and so the reservation token). See [Logs](observability.md#logs).",
  }),
  serviceName: text('OTEL_SERVICE_NAME', 'loyalty-api', 'a name', {
    section: 'logs',
    meaning: "The service's name on every log line (`service`) and, with tracing on, the spans' `service.name`.",
  }),

  metrics: oneOf('METRICS', ['on', 'off'] as const, 'on', {
    section: 'metrics',
    meaning: '`on`: Prometheus text on `GET /metrics` at `METRICS_PORT` (see [Metrics](observability.md#metrics)); `off`: no metrics at all, and no metrics port.',
  }),
  metricsPort: integer('METRICS_PORT', defaultMetricsPort, { min: 0, max: 65535 }, {
    section: 'metrics',
    meaning:
      "The port `/metrics` is served on, a listener of its own with nothing else; never the API's port, where `/metrics` answers `404`. `0`: any free port, which the first log lines name (`Metrics on http://...:<port>/metrics`). Several processes on one host each need their own (or `0`). Must differ from `PORT`.",
  }),

  sdkDisabled: variable(
    'OTEL_SDK_DISABLED',
    { section: 'tracing', default: 'false', values: 'true or false', meaning: '`true`: no tracing, whatever else is set.' },
    // The specification's boolean: only `true` (any case) is true.
    (reader, name) => reader.optional(name)?.toLowerCase() === 'true',
  ),
  tracesExporter: optionalText('OTEL_TRACES_EXPORTER', 'otlp or none', {
    section: 'tracing',
    meaning: '`otlp`: tracing on (to the default endpoint, `http://localhost:4318`, if none is set); `none`: off. Unset: on when an endpoint below is set.',
  }),
  endpoint: optionalText('OTEL_EXPORTER_OTLP_ENDPOINT', 'an http:// or https:// URL', {
    section: 'tracing',
    meaning: 'Base URL of an OTLP/HTTP receiver (`http://collector:4318`); spans go to `<it>/v1/traces`. Setting it turns tracing on.',
  }),
  tracesEndpoint: optionalText('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'an http:// or https:// URL', {
    section: 'tracing',
    meaning: 'The full URL for spans, used as it is; wins over the one above, and also turns tracing on.',
  }),
  protocol: oneOf('OTEL_EXPORTER_OTLP_PROTOCOL', otlpProtocols, 'http/protobuf', { section: 'tracing', meaning: 'How spans are encoded over HTTP (`grpc` is not supported).' }),
  tracesProtocol: variable(
    'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    { section: 'tracing', default: null, values: `one of ${otlpProtocols.join(', ')}`, meaning: 'As the one above, for spans; wins over it. Unset: the one above.' },
    (reader, name) => (reader.optional(name) === null ? null : reader.oneOf(name, otlpProtocols, 'http/protobuf')),
  ),
  sampler: oneOf('OTEL_TRACES_SAMPLER', traceSamplers, 'parentbased_always_on', {
    section: 'tracing',
    meaning: "The standard samplers; `parentbased_*` follows the caller's sampled flag.",
  }),
  samplerArg: variable(
    'OTEL_TRACES_SAMPLER_ARG',
    { section: 'tracing', default: '1', values: 'a number from 0 to 1', meaning: 'The ratio of the `*traceidratio` samplers (read only with one of them).' },
    (reader, name) => reader.ratio(name),
  ),
} as const satisfies Record<string, ConfigVariable>;

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
  const v = configVariables;
  const mongoUri = v.mongoUri.read(reader);
  const mongoSettings = {
    dbName: v.mongoDb.read(reader),
    serverSelectionTimeoutMs: v.serverSelectionTimeoutMs.read(reader),
    socketTimeoutMs: v.socketTimeoutMs.read(reader),
    auditRetentionDays: v.auditRetentionDays.read(reader),
  };
  const config: AppConfig = {
    port: v.port.read(reader),
    mongo: mongoUri === null ? null : Object.freeze({ uri: mongoUri, ...mongoSettings }),
    allowEmbeddedStore: v.allowEmbeddedStore.read(reader),
    seedFile: v.seedFile.read(reader),
    rateLimitPerMinute: v.rateLimitPerMinute.read(reader),
    sessionRateLimitPerMinute: v.sessionRateLimitPerMinute.read(reader),
    authFailuresPerMinute: v.authFailuresPerMinute.read(reader),
    maxEndedSessions: v.maxEndedSessions.read(reader),
    logLevel: v.logLevel.read(reader),
    logMemberIds: v.logMemberIds.read(reader),
    serviceName: v.serviceName.read(reader),
    bodyLimitBytes: v.bodyLimitBytes.read(reader),
    shutdownDelayMs: v.shutdownDelayMs.read(reader),
    shutdownGraceMs: v.shutdownGraceMs.read(reader),
    trustProxy: v.trustProxy.read(reader),
    corsOrigins: Object.freeze(v.corsOrigins.read(reader)),
    metrics: metricsConfig(reader),
    tracing: tracingConfig(reader),
    walletLimits: Object.freeze({ maxActiveReservationsPerWallet: v.maxActiveReservationsPerWallet.read(reader) }),
  };
  const metricsPort = config.metrics?.port;
  if (metricsPort && metricsPort === config.port) reader.problems.push(`METRICS_PORT must differ from PORT (both ${metricsPort}): /metrics has a port of its own`);
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
  const v = configVariables;
  if (v.sdkDisabled.read(reader)) return null;
  const exporter = v.tracesExporter.read(reader);
  const tracesEndpoint = v.tracesEndpoint.read(reader);
  const endpoint = v.endpoint.read(reader);
  if (exporter === 'none') return null;
  if (exporter !== null && exporter !== 'otlp') {
    reader.problems.push(`OTEL_TRACES_EXPORTER must be ${v.tracesExporter.values} (got ${JSON.stringify(exporter)})`);
    return null;
  }
  if (exporter === null && tracesEndpoint === null && endpoint === null) return null;

  // The signal's own variable wins over the general one, which is read only when needed.
  const protocol = v.tracesProtocol.read(reader) ?? v.protocol.read(reader);
  const sampler = v.sampler.read(reader);
  if (sampler.endsWith('traceidratio')) v.samplerArg.read(reader);
  const resolved = tracesEndpoint
    ? reader.httpUrl(v.tracesEndpoint.name, tracesEndpoint)
    : endpoint
      ? reader.httpUrl(v.endpoint.name, `${endpoint.replace(/\/+$/, '')}/v1/traces`)
      : new URL(defaultTracesEndpoint);
  if (!resolved) return null;
  return Object.freeze({ protocol, endpoint: withoutCredentials(resolved), serviceName: v.serviceName.read(reader), memberIds: v.logMemberIds.read(reader) });
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
  const enabled = configVariables.metrics.read(reader) === 'on';
  const port = configVariables.metricsPort.read(reader);
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
export class EnvReader {
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
    return this.reject(name, raw, integerValues(range), fallback);
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

  /** `true` or `false`, as written (nothing else, so that a typo is not taken for either). */
  boolean(name: string, fallback: boolean): boolean {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    return this.reject(name, raw, 'true or false', fallback);
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
