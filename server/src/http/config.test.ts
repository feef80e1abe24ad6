import { ConfigError, describeMongoTarget, loadConfig } from '../config';

describe('loadConfig', () => {
  it('has a default for everything', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      mongo: null,
      seedFile: null,
      rateLimitPerMinute: 6000,
      logLevel: 'info',
      bodyLimitBytes: 16384,
      shutdownGraceMs: 10000,
      trustProxy: false,
      walletLimits: { maxActiveReservationsPerWallet: 1000 },
      metrics: { port: null },
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      MONGODB_URI: 'mongodb://u:p@db:27017',
      MONGODB_DB: 'loyalty_test',
      MONGODB_SERVER_SELECTION_TIMEOUT_MS: '2000',
      MONGODB_SOCKET_TIMEOUT_MS: '3000',
      SEED_FILE: '/data/seed.json',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'debug',
      BODY_LIMIT_BYTES: '1024',
      SHUTDOWN_GRACE_MS: '500',
      TRUST_PROXY: '1',
      MAX_ACTIVE_RESERVATIONS_PER_WALLET: '250',
      METRICS_PORT: '9464',
    });
    expect(config).toEqual({
      port: 8080,
      mongo: { uri: 'mongodb://u:p@db:27017', dbName: 'loyalty_test', serverSelectionTimeoutMs: 2000, socketTimeoutMs: 3000 },
      seedFile: '/data/seed.json',
      rateLimitPerMinute: 0,
      logLevel: 'debug',
      bodyLimitBytes: 1024,
      shutdownGraceMs: 500,
      trustProxy: 1,
      walletLimits: { maxActiveReservationsPerWallet: 250 },
      metrics: { port: 9464 },
    });
  });

  it('is frozen, nested parts included', () => {
    const config = loadConfig({ MONGODB_URI: 'mongodb://db' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.mongo)).toBe(true);
  });

  it('turns metrics off', () => {
    expect(loadConfig({ METRICS: 'off', METRICS_PORT: '9464' }).metrics).toBeNull();
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ MONGODB_URI: '', PORT: ' ', SEED_FILE: '' })).toMatchObject({ mongo: null, port: 3000, seedFile: null });
  });

  it.each([
    ['TRUST_PROXY', 'true', true],
    ['TRUST_PROXY', 'false', false],
    ['PORT', '0', 0],
    ['LOG_LEVEL', 'silent', 'silent'],
  ])('accepts %s=%s', (name, value, expected) => {
    const key = { TRUST_PROXY: 'trustProxy', PORT: 'port', LOG_LEVEL: 'logLevel' }[name] as keyof ReturnType<typeof loadConfig>;
    expect(loadConfig({ [name]: value })[key]).toBe(expected);
  });

  it.each([
    ['PORT', 'abc', /PORT must be an integer from 0 to 65535 \(got "abc"\)/],
    ['PORT', '70000', /PORT must be an integer from 0 to 65535/],
    ['PORT', '3000.5', /PORT/],
    ['PORT', '-1', /PORT/],
    ['RATE_LIMIT_PER_MINUTE', '1e3', /RATE_LIMIT_PER_MINUTE must be an integer >= 0/],
    ['BODY_LIMIT_BYTES', '0', /BODY_LIMIT_BYTES must be an integer >= 1/],
    ['MONGODB_SERVER_SELECTION_TIMEOUT_MS', '0', /MONGODB_SERVER_SELECTION_TIMEOUT_MS/],
    ['SHUTDOWN_GRACE_MS', 'soon', /SHUTDOWN_GRACE_MS/],
    ['LOG_LEVEL', 'verbose', /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent \(got "verbose"\)/],
    ['TRUST_PROXY', 'yes', /TRUST_PROXY must be true, false or a number of proxy hops/],
    ['MONGODB_URI', 'postgres://db', /MONGODB_URI must be a mongodb:\/\/ or mongodb\+srv:\/\/ URI/],
    ['METRICS', 'yes', /METRICS must be one of on, off \(got "yes"\)/],
    ['METRICS_PORT', '70000', /METRICS_PORT must be an integer from 0 to 65535/],
    ['METRICS_PORT', '3000', /METRICS_PORT must differ from PORT \(both 3000\)/],
    ['MAX_ACTIVE_RESERVATIONS_PER_WALLET', '0', /MAX_ACTIVE_RESERVATIONS_PER_WALLET must be an integer from 1 to 5000 \(got "0"\)/],
    ['MAX_ACTIVE_RESERVATIONS_PER_WALLET', '5001', /MAX_ACTIVE_RESERVATIONS_PER_WALLET must be an integer from 1 to 5000/],
  ])('rejects %s=%s, naming the variable', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  });

  it('reports every invalid variable at once', () => {
    const attempt = (): unknown => loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' });
    expect(attempt).toThrow(/PORT[\s\S]*LOG_LEVEL/);
  });

  it('never repeats a MongoDB URI in an error (it may hold a password)', () => {
    expect(() => loadConfig({ MONGODB_URI: 'mongo://user:s3cret@db' })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('s3cret') }));
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
