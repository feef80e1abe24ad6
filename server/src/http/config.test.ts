import { ConfigError, configVariables, defaultMetricsPort, describeMongoTarget, loadConfig, loadTracingConfig } from '../config';

/** What the spans say of the service and of members, as the logs do (the defaults). */
const spanIdentity = { serviceName: 'loyalty-api', memberIds: 'hashed' };

describe('loadConfig', () => {
  it('has a default for everything', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      mongo: null,
      allowEmbeddedStore: true,
      seedFile: null,
      rateLimitPerMinute: 6000,
      sessionRateLimitPerMinute: 120,
      authFailuresPerMinute: 100,
      maxEndedSessions: 200000,
      logLevel: 'info',
      logMemberIds: 'hashed',
      serviceName: 'loyalty-api',
      bodyLimitBytes: 16384,
      shutdownDelayMs: 0,
      shutdownGraceMs: 10000,
      trustProxy: false,
      corsOrigins: [],
      walletLimits: { maxActiveReservationsPerWallet: 1000 },
      metrics: { port: 9464 },
      tracing: null,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      MONGODB_URI: 'mongodb://u:p@db:27017',
      MONGODB_DB: 'loyalty_test',
      MONGODB_SERVER_SELECTION_TIMEOUT_MS: '2000',
      MONGODB_SOCKET_TIMEOUT_MS: '3000',
      AUDIT_RETENTION_DAYS: '400',
      ALLOW_EMBEDDED_STORE: 'false',
      SEED_FILE: '/data/seed.json',
      RATE_LIMIT_PER_MINUTE: '0',
      SESSION_RATE_LIMIT_PER_MINUTE: '30',
      AUTH_FAILURES_PER_MINUTE: '0',
      MAX_ENDED_SESSIONS: '5000',
      LOG_LEVEL: 'debug',
      LOG_MEMBER_IDS: 'plain',
      OTEL_SERVICE_NAME: 'loyalty-api-eu',
      BODY_LIMIT_BYTES: '1024',
      SHUTDOWN_DELAY_MS: '5000',
      SHUTDOWN_GRACE_MS: '500',
      TRUST_PROXY: '1',
      CORS_ORIGINS: 'https://app.example.com, http://127.0.0.1:5173',
      MAX_ACTIVE_RESERVATIONS_PER_WALLET: '250',
      METRICS_PORT: '9465',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    expect(config).toEqual({
      port: 8080,
      mongo: { uri: 'mongodb://u:p@db:27017', dbName: 'loyalty_test', serverSelectionTimeoutMs: 2000, socketTimeoutMs: 3000, auditRetentionDays: 400 },
      allowEmbeddedStore: false,
      seedFile: '/data/seed.json',
      rateLimitPerMinute: 0,
      sessionRateLimitPerMinute: 30,
      authFailuresPerMinute: 0,
      maxEndedSessions: 5000,
      logLevel: 'debug',
      logMemberIds: 'plain',
      serviceName: 'loyalty-api-eu',
      bodyLimitBytes: 1024,
      shutdownDelayMs: 5000,
      shutdownGraceMs: 500,
      trustProxy: 1,
      corsOrigins: ['https://app.example.com', 'http://127.0.0.1:5173'],
      walletLimits: { maxActiveReservationsPerWallet: 250 },
      metrics: { port: 9465 },
      tracing: { protocol: 'http/json', endpoint: 'http://collector:4318/v1/traces', serviceName: 'loyalty-api-eu', memberIds: 'plain' },
    });
  });

  it('reads exactly the variables it defines (the reference in docs/ is generated from those definitions)', () => {
    const read = new Set<string>();
    const watched = new Proxy<Record<string, string | undefined>>({}, {
      get: (_target, name) => {
        if (typeof name === 'string') read.add(name);
        // Tracing on, with a ratio sampler: every variable is read.
        return { OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'traceidratio', MONGODB_URI: 'mongodb://db' }[name as string];
      },
    });
    loadConfig(watched);
    expect([...read].sort()).toEqual(Object.values(configVariables).map((variable) => variable.name).sort());
  });

  it('is frozen, nested parts included', () => {
    const config = loadConfig({ MONGODB_URI: 'mongodb://db' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.mongo)).toBe(true);
  });

  it('serves metrics on a port of their own, 9464 (the OpenTelemetry Prometheus exporter\'s) unless METRICS_PORT says another', () => {
    expect(defaultMetricsPort).toBe(9464);
    expect(loadConfig({}).metrics).toEqual({ port: 9464 });
    expect(loadConfig({ METRICS_PORT: '0' }).metrics).toEqual({ port: 0 });
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' })).toMatchObject({ port: 0, metrics: { port: 0 } });
  });

  it('turns metrics off, and their port with them', () => {
    expect(loadConfig({ METRICS: 'off', METRICS_PORT: '9464' }).metrics).toBeNull();
    expect(loadConfig({ METRICS: 'off', PORT: '9464' }).metrics).toBeNull();
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ MONGODB_URI: '', PORT: ' ', SEED_FILE: '' })).toMatchObject({ mongo: null, port: 3000, seedFile: null });
  });

  it.each([
    ['TRUST_PROXY', 'true', true],
    ['TRUST_PROXY', 'false', false],
    ['PORT', '0', 0],
    ['LOG_LEVEL', 'silent', 'silent'],
    ['ALLOW_EMBEDDED_STORE', 'false', false],
    ['ALLOW_EMBEDDED_STORE', 'true', true],
  ])('accepts %s=%s', (name, value, expected) => {
    const key = { TRUST_PROXY: 'trustProxy', PORT: 'port', LOG_LEVEL: 'logLevel', ALLOW_EMBEDDED_STORE: 'allowEmbeddedStore' }[name] as keyof ReturnType<typeof loadConfig>;
    expect(loadConfig({ [name]: value })[key]).toBe(expected);
  });

  it.each([
    ['PORT', 'abc', /PORT must be an integer from 0 to 65535 \(got "abc"\)/],
    ['PORT', '70000', /PORT must be an integer from 0 to 65535/],
    ['PORT', '3000.5', /PORT/],
    ['PORT', '-1', /PORT/],
    ['RATE_LIMIT_PER_MINUTE', '1e3', /RATE_LIMIT_PER_MINUTE must be an integer >= 0/],
    ['SESSION_RATE_LIMIT_PER_MINUTE', '-1', /SESSION_RATE_LIMIT_PER_MINUTE must be an integer >= 0/],
    ['AUTH_FAILURES_PER_MINUTE', 'lots', /AUTH_FAILURES_PER_MINUTE must be an integer >= 0/],
    ['BODY_LIMIT_BYTES', '0', /BODY_LIMIT_BYTES must be an integer >= 1/],
    ['MONGODB_SERVER_SELECTION_TIMEOUT_MS', '0', /MONGODB_SERVER_SELECTION_TIMEOUT_MS/],
    ['SHUTDOWN_GRACE_MS', 'soon', /SHUTDOWN_GRACE_MS/],
    ['SHUTDOWN_DELAY_MS', '300001', /SHUTDOWN_DELAY_MS must be an integer from 0 to 300000 \(got "300001"\)/],
    ['SHUTDOWN_DELAY_MS', '-1', /SHUTDOWN_DELAY_MS must be an integer from 0 to 300000/],
    ['LOG_LEVEL', 'verbose', /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent \(got "verbose"\)/],
    ['TRUST_PROXY', 'yes', /TRUST_PROXY must be true, false or a number of proxy hops/],
    ['MONGODB_URI', 'postgres://db', /MONGODB_URI must be a mongodb:\/\/ or mongodb\+srv:\/\/ URI/],
    ['METRICS', 'yes', /METRICS must be one of on, off \(got "yes"\)/],
    ['ALLOW_EMBEDDED_STORE', 'no', /ALLOW_EMBEDDED_STORE must be true or false \(got "no"\)/],
    ['LOG_MEMBER_IDS', 'hash', /LOG_MEMBER_IDS must be one of off, hashed, plain \(got "hash"\)/],
    ['METRICS_PORT', '70000', /METRICS_PORT must be an integer from 0 to 65535/],
    ['METRICS_PORT', '3000', /METRICS_PORT must differ from PORT \(both 3000\)/],
    ['PORT', '9464', /METRICS_PORT must differ from PORT \(both 9464\)/],
    ['MAX_ACTIVE_RESERVATIONS_PER_WALLET', '0', /MAX_ACTIVE_RESERVATIONS_PER_WALLET must be an integer from 1 to 5000 \(got "0"\)/],
    ['MAX_ACTIVE_RESERVATIONS_PER_WALLET', '5001', /MAX_ACTIVE_RESERVATIONS_PER_WALLET must be an integer from 1 to 5000/],
    ['AUDIT_RETENTION_DAYS', '0', /AUDIT_RETENTION_DAYS must be an integer from 1 to 36500 \(got "0"\)/],
    ['AUDIT_RETENTION_DAYS', '1.5', /AUDIT_RETENTION_DAYS must be an integer from 1 to 36500/],
  ])('rejects %s=%s, naming the variable', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  });

  it.each([
    ['one origin', 'http://127.0.0.1:5173', ['http://127.0.0.1:5173']],
    ['several, spaces around commas', 'https://a.example.com , https://b.example.com:8443', ['https://a.example.com', 'https://b.example.com:8443']],
    ['an IPv6 host', 'http://[::1]:5173', ['http://[::1]:5173']],
    ['the same origin twice, kept once', 'https://a.example.com,https://a.example.com', ['https://a.example.com']],
  ])('reads CORS_ORIGINS: %s', (_case, value, expected) => {
    expect(loadConfig({ CORS_ORIGINS: value }).corsOrigins).toEqual(expected);
  });

  it.each([
    ['any origin', '*', /"\*" is not a URL/],
    ['a path', 'https://app.example.com/shop', /"https:\/\/app.example.com\/shop" is not written as browsers send it \(https:\/\/app.example.com\)/],
    ['a trailing slash', 'https://app.example.com/', /is not written as browsers send it \(https:\/\/app.example.com\)/],
    ['the default port', 'https://app.example.com:443', /is not written as browsers send it \(https:\/\/app.example.com\)/],
    ['an upper-case host', 'https://App.example.com', /is not written as browsers send it \(https:\/\/app.example.com\)/],
    ['no scheme', 'app.example.com', /"app.example.com" is not a URL/],
    ['another scheme', 'ftp://files.example.com', /is not http:\/\/ or https:\/\//],
    ['the opaque origin', 'null', /"null" is not a URL/],
    ['an empty entry', 'https://a.example.com,,https://b.example.com', /an empty entry/],
  ])('rejects CORS_ORIGINS with %s, naming the variable and the entry', (_case, value, message) => {
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(/CORS_ORIGINS must be a comma-separated list of origins/);
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(message);
  });

  it('reports every invalid variable at once', () => {
    const attempt = (): unknown => loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' });
    expect(attempt).toThrow(/PORT[\s\S]*LOG_LEVEL/);
  });

  it('never repeats a MongoDB URI in an error (it may hold a password)', () => {
    expect(() => loadConfig({ MONGODB_URI: 'mongo://user:s3cret@db' })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('s3cret') }));
  });
});

describe('tracing (OTEL_*)', () => {
  const endpoint = 'http://collector:4318';

  it('is off without OTEL variables, and with any that do not name an exporter or endpoint', () => {
    expect(loadConfig({}).tracing).toBeNull();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'bogus', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).tracing).toBeNull();
  });

  it('is on with an OTLP endpoint: http/protobuf by default, to its /v1/traces', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }).tracing).toEqual({ protocol: 'http/protobuf', endpoint: `${endpoint}/v1/traces`, ...spanIdentity });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `${endpoint}/base/` }).tracing?.endpoint).toBe(`${endpoint}/base/v1/traces`);
  });

  it('takes the traces endpoint as it is, and the traces protocol over the general one', () => {
    const tracing = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/custom`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    }).tracing;
    expect(tracing).toEqual({ protocol: 'http/json', endpoint: `${endpoint}/custom`, ...spanIdentity });
  });

  it('is on with OTEL_TRACES_EXPORTER=otlp alone, to the default endpoint', () => {
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing).toEqual({ protocol: 'http/protobuf', endpoint: 'http://localhost:4318/v1/traces', ...spanIdentity });
  });

  it.each([
    ['OTEL_SDK_DISABLED=true', { OTEL_SDK_DISABLED: 'true' }],
    ['OTEL_SDK_DISABLED=TRUE', { OTEL_SDK_DISABLED: 'TRUE' }],
    ['OTEL_TRACES_EXPORTER=none', { OTEL_TRACES_EXPORTER: 'none' }],
  ])('is off with %s, whatever else is set (and set wrong)', (_case, off) => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', ...off }).tracing).toBeNull();
  });

  it('keeps tracing on when OTEL_SDK_DISABLED is anything but true (the specification: only true is true)', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'false' }).tracing).not.toBeNull();
  });

  it('accepts every standard sampler, and a ratio for the ratio samplers', () => {
    for (const sampler of ['always_on', 'always_off', 'parentbased_always_off', 'parentbased_always_on']) {
      expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: sampler }).tracing).not.toBeNull();
    }
    const ratio = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' };
    expect(loadConfig(ratio).tracing).not.toBeNull();
  });

  it('stops the start on what it cannot do, naming each variable', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    };
    expect(problems({ ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual([
      'OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json (got "grpc")',
    ]);
    expect(problems({ OTEL_TRACES_EXPORTER: 'zipkin' })).toEqual(['OTEL_TRACES_EXPORTER must be otlp or none (got "zipkin")']);
    expect(problems({ ...on, OTEL_TRACES_SAMPLER: 'sometimes' })).toEqual([expect.stringMatching(/^OTEL_TRACES_SAMPLER must be one of parentbased_always_on, /)]);
    expect(problems({ ...on, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toEqual([
      'OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (got "2")',
    ]);
    expect(problems({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' })).toEqual(['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http:// or https:// URL']);
  });

  it('never shows credentials of an endpoint', () => {
    const tracing = loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:secret@collector/v1/traces?api_key=k' }).tracing;
    expect(tracing?.endpoint).toBe('https://collector/v1/traces');
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://user:secret@collector' })).toThrow('OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL');
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://user:secret@collector' })).not.toThrow(/secret/);
  });

  it('loadTracingConfig: off, with the problems, when a variable is invalid (loadConfig then reports them)', () => {
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual({
      tracing: null,
      problems: ['OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json (got "grpc")'],
    });
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toEqual({
      tracing: { protocol: 'http/protobuf', endpoint: `${endpoint}/v1/traces`, ...spanIdentity },
      problems: [],
    });
  });
});

describe('describeMongoTarget', () => {
  it.each([
    ['mongodb://db:27017', 'db:27017/loyalty'],
    ['mongodb://user:s3cret@db:27017/admin?authSource=admin', 'db:27017/loyalty'],
    ['mongodb://user:p%40ss@h1:27017,h2:27018/?replicaSet=rs0', 'h1:27017,h2:27018/loyalty'],
    ['mongodb+srv://user:s3cret@cluster0.example.net', 'cluster0.example.net/loyalty'],
  ])('%s is %s, without credentials', (uri, expected) => {
    expect(describeMongoTarget({ uri, dbName: 'loyalty' })).toBe(expected);
  });
});
