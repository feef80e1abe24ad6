import type { Db, MongoClient } from 'mongodb';
import { createServices } from '../../server/src/features';
import { MongoConnection, type ConnectionEnvironment } from '../../server/src/store/mongo/connection';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { rawSocketErrors } from '../../server/src/store/test-support/raw-errors';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';

/*
 * During an outage the MongoDB driver lets some of Node's own socket errors
 * through unwrapped (EPIPE "This socket has been ended by the other party",
 * ECONNRESET, a write after end...). Injected into every driver call under
 * the real adapter and connection, each must answer every operation with
 * the documented 503 and Retry-After, never a 500.
 */

let failure: Error = new Error('set per test');

/**
 * A driver whose every call fails with `failure` once awaited, whatever is
 * chained on it (findOne(), find().sort().toArray(), aggregate().toArray()).
 */
function failingDriverObject(): unknown {
  const fail = (): unknown =>
    new Proxy(() => undefined, {
      get: (_target, property) => (property === 'then' ? undefined : fail()),
      apply: () => ({
        then: (resolve: (value: never) => unknown, reject: (reason: unknown) => unknown) => Promise.reject(failure).then(resolve, reject),
        sort: fail,
        toArray: () => Promise.reject(failure),
      }),
    });
  return fail();
}

const environment: ConnectionEnvironment = {
  now: () => Date.now(),
  createClient: () =>
    ({
      connect: async function (this: MongoClient) {
        return this;
      },
      db: () => ({ collection: () => failingDriverObject(), command: () => Promise.reject(failure) }) as unknown as Db,
      close: async () => undefined,
      on: () => undefined,
    }) as unknown as MongoClient,
};

let app: TestApp;
let baseUrl: string;

beforeAll(async () => {
  const connection = await MongoConnection.open({ uri: 'mongodb://db:27017', dbName: 'loyalty', watchdogIntervalMs: 0 }, {}, environment);
  const store = MongoStore.over(connection);
  app = await startTestApp({ deps: { services: createServices({ store, clock: () => new Date() }), store } });
  baseUrl = app.baseUrl;
});
afterAll(() => app.close());

const member = { 'x-api-key': 'demo_secret_partner_app_0001', authorization: 'Bearer st_0123456789abcdefghijklmnopqrstuv' };
const operations: Array<[string, string, string, RequestInit]> = [
  ['Start Session', 'POST', '/client/users/m-alice/sessions', { headers: { 'x-api-key': 'demo_secret_partner_app_0001', 'x-identifier-type': 'EMAIL' } }],
  ['Operation A', 'GET', '/client/users/m-alice/voucher-definitions', { headers: member }],
  ['Operation B', 'PUT', '/client/users/m-alice/reservations/rt-1', { headers: { ...member, 'content-type': 'application/json' }, body: '{"reservationAmount":1}' }],
  ['/readyz', 'GET', '/readyz', {}],
];

describe.each(rawSocketErrors)('the driver surfaces %s', (_name, error) => {
  beforeEach(() => {
    failure = error;
  });

  it.each(operations)('%s answers the documented 503 with Retry-After', async (_operation, method, path, init) => {
    const response = await fetch(`${baseUrl}${path}`, { ...init, method });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ statusCode: 503, errorCode: 'SERVICE_UNAVAILABLE', errorMessage: 'Service unavailable' });
    if (path !== '/readyz') expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
