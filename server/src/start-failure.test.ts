import { EmbeddedStoreRefusedError } from './composition';
import { ConfigError, loadConfig } from './config';
import { InvalidSpecError } from './http/spec';
import { describeStartFailure } from './start-failure';
import { FixtureError } from './features/load/fixture-error';
import { LayoutMismatchError } from './store/mongo/layout';
import { StoreUnavailableError } from './store/port';

const embedded = loadConfig({ PORT: '3000' });
const mongo = loadConfig({ MONGODB_URI: 'mongodb://app:s3cret@db-1:27017/?replicaSet=rs0', MONGODB_SERVER_SELECTION_TIMEOUT_MS: '500' });
const errno = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('describeStartFailure', () => {
  it.each([
    ['an invalid variable', new ConfigError(['PORT must be an integer from 0 to 65535 (got "abc")']), null,
      'Invalid configuration:\n  - PORT must be an integer from 0 to 65535 (got "abc")'],
    ['no MongoDB where the embedded store is refused (the image)', new EmbeddedStoreRefusedError(), loadConfig({ ALLOW_EMBEDDED_STORE: 'false' }),
      "MONGODB_URI is not set, and ALLOW_EMBEDDED_STORE=false refuses the embedded store (its demo data's keys are public): set MONGODB_URI to your MongoDB."],
    ['a bad fixture, with its paths', new FixtureError([{ path: '/members/0/pointBalance', message: 'must be >= 0' }], 'fixture file /data/seed.json'), embedded,
      'Invalid fixture file /data/seed.json:\n  /members/0/pointBalance: must be >= 0'],
    ['a broken spec', new InvalidSpecError('/app/openapi/openapi.yaml', 'missing $ref #/components/schemas/Sesion'), embedded,
      'OpenAPI spec /app/openapi/openapi.yaml is not usable: missing $ref #/components/schemas/Sesion'],
    ['an unreachable MongoDB, with the driver\'s cause and no credentials', new StoreUnavailableError('connect ECONNREFUSED 10.0.0.5:27017'), mongo,
      'Cannot reach MongoDB at db-1:27017/loyalty (within MONGODB_SERVER_SELECTION_TIMEOUT_MS=500): connect ECONNREFUSED 10.0.0.5:27017'],
    ['a port in use', errno('EADDRINUSE', 'listen EADDRINUSE: address already in use :::3000'), embedded,
      'Port 3000 is already in use: stop what listens there, or set PORT to another port.'],
    ['a port it may not use', errno('EACCES', 'listen EACCES: permission denied 0.0.0.0:80'), loadConfig({ PORT: '80' }),
      'No permission to listen on port 80: set PORT to a port above 1023.'],
    ['the metrics port in use', Object.assign(errno('EADDRINUSE', 'listen EADDRINUSE: address already in use :::9464'), { port: 9464 }),
      loadConfig({ PORT: '3000', METRICS_PORT: '9464' }),
      'Port 9464 is already in use: stop what listens there, or set METRICS_PORT to another port.'],
    ['the API port in use, with a metrics port', Object.assign(errno('EADDRINUSE', 'listen EADDRINUSE: address already in use :::3000'), { port: 3000 }),
      loadConfig({ PORT: '3000', METRICS_PORT: '9464' }),
      'Port 3000 is already in use: stop what listens there, or set PORT to another port.'],
    ['a database of an older data layout, with the command to run', new LayoutMismatchError({ version: 2, recorded: false, migrating: null }), mongo,
      'The database holds data layout 2; this server needs layout 5. Run `loyalty-admin migrate` to bring it to layout 5 (docs/operating.md).'],
    ['a database of a newer data layout', new LayoutMismatchError({ version: 6, recorded: true, migrating: null }), mongo,
      'The database holds data layout 6; this server knows layout 5, an older one. Deploy a server release that knows layout 6.'],
    ['anything else, with a hint', new Error('boom'), embedded,
      'The server cannot start: boom\n(Set LOG_LEVEL=debug to see where it failed.)'],
  ])('%s', (_case, error, config, expected) => {
    expect(describeStartFailure(error, { config, verbose: false })).toBe(expected);
  });

  it('adds the stack trace only when verbose', () => {
    const error = new FixtureError([{ path: '/', message: 'cannot read the file (ENOENT)' }], 'fixture file x.json');
    expect(describeStartFailure(error, { config: embedded, verbose: false })).not.toMatch(/\n\s+at /);
    expect(describeStartFailure(error, { config: embedded, verbose: true })).toMatch(/^Invalid fixture file x\.json:\n.*\n\nFixtureError: .*\n\s+at /s);
  });
});
