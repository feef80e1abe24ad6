import { MongoClient } from 'mongodb';
import { memberIdHash } from '../../server/src/domain/secrets';
import type { MemberIdMode } from '../../server/src/domain/member-ids';
import { wrapStore } from '../../server/src/store/store-wrapper';
import { fixedConnection } from '../../server/src/store/mongo/connection';
import { connectTestStore, testMongoSource, type TestMongoStore } from '../../server/src/store/test-support/mongo-test-server';
import type { Store } from '../../server/src/store/port';
import { faultInjecting } from '../../server/src/store/test-support/fault-injecting-store';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import { integrationFixture, keys, t0 } from '../support/fixture';

/*
 * What a failed request's log line says of members, as LOG_MEMBER_IDS says:
 * not only the request's own member (its path's), but every member the
 * failed work met and its error may quote (domain/member-ids.ts). m-hh-1
 * changes its household's reservation rt-hh-1, which m-hh-2 co-funds;
 * m-hh-3 is in the household too. The log key is the test's, so that a
 * hash is what `loyalty-admin log-hash` gives an operator for that member.
 */

const logKey = new Uint8Array(32).fill(9);
const hash = (id: string) => memberIdHash(logKey, id);
const path = '/client/users/m-hh-1/reservations/rt-hh-1';

/** The request's one log line, by its request id. */
async function failedLine(app: TestApp, requestId: string): Promise<Record<string, unknown>> {
  const token = await app.api.startSession(keys.partner, 'm-hh-1');
  const response = await app.send('PUT', path, { apiKey: keys.partner, bearer: token, json: { reservationAmount: 9000 }, headers: { 'x-request-id': requestId } });
  expect(response.status).toBe(500);
  const line = app.logs.find((entry) => entry.requestId === requestId);
  if (!line) throw new Error(`no log line for ${requestId}`);
  expect(line).toMatchObject({ level: 'error', msg: 'request errored' });
  return line;
}

/** Each mode: the ids the line must not hold, and what must stand in their place. */
const modes: Array<[MemberIdMode, { hidden: string[]; shown: string[] }]> = [
  ['hashed', { hidden: ['m-hh-1', 'm-hh-2', 'm-hh-3', 'rt-hh-1'], shown: [hash('m-hh-2'), hash('m-hh-3'), hash('m-hh-1')] }],
  ['off', { hidden: ['m-hh-1', 'm-hh-2', 'm-hh-3', 'rt-hh-1', hash('m-hh-2')], shown: ['{correlation_id}', '{reservation_token}'] }],
  ['plain', { hidden: [], shown: ['m-hh-1', 'm-hh-2', 'm-hh-3', 'rt-hh-1'] }],
];

describe.each(modes)('LOG_MEMBER_IDS=%s: an error quoting a co-member', (mode, { hidden, shown }) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({
      fixture: integrationFixture,
      startAt: t0,
      logKey,
      config: { logMemberIds: mode },
      wrapStore: (store) => {
        const faults = faultInjecting(store);
        // A store that fails the save with an error naming the household's other members, in its message and in its cause.
        faults.inject({
          fault: 'error',
          methods: ['saveReservationChange'],
          thrown: () => new Error('rt-hh-1 of m-hh-1 not saved: the share of m-hh-2 is locked', { cause: new Error('m-hh-3 is moving') }),
        });
        return faults;
      },
    });
  });
  afterAll(() => app.close());

  it('shows every member it names as the mode says, in its message, stack and cause', async () => {
    const line = await failedLine(app, `co-member-${mode}`);
    const text = JSON.stringify(line);
    for (const id of hidden) expect(text).not.toContain(id);
    for (const id of shown) expect(text).toContain(id);
    const err = line.err as { message: string; stack: string };
    const [member, coMember, moving] = mode === 'plain' ? ['m-hh-1', 'm-hh-2', 'm-hh-3'] : mode === 'hashed' ? [hash('m-hh-1'), hash('m-hh-2'), hash('m-hh-3')] : Array(3).fill('{correlation_id}');
    const token = mode === 'plain' ? 'rt-hh-1' : '{reservation_token}';
    // pino writes an error's message with its causes'.
    expect(err.message).toBe(`${token} of ${member} not saved: the share of ${coMember} is locked: ${moving} is moving`);
    expect(err.stack).toContain(`caused by: Error: ${moving} is moving`);
  });
});

const mongo = testMongoSource();
if (mongo.kind === 'none') {
  it.skip(`a duplicate key on MongoDB: skipped, ${mongo.reason}`, () => undefined);
} else {
  describe.each(modes.map(([mode]) => mode))('LOG_MEMBER_IDS=%s: a duplicate key MongoDB refused', (mode) => {
    let test: TestMongoStore;
    let client: MongoClient;
    let app: TestApp;
    beforeAll(async () => {
      test = await connectTestStore(mongo.uri, 'error-logs');
      client = await new MongoClient(mongo.uri, { serverSelectionTimeoutMS: 10_000 }).connect();
      const db = client.db(test.dbName);
      const planted = db.collection<{ _id: string }>('planted');
      await planted.insertOne({ _id: 'household:hh-1/m-hh-2' });
      // Through the adapter's one way to run a driver call (connection.ts `run`, its error translation).
      const connection = fixedConnection(client, db);
      const duplicating = (store: Store) =>
        wrapStore(store, async (method, _args, call) => {
          if (method === 'saveReservationChange') await connection.run(() => planted.insertOne({ _id: 'household:hh-1/m-hh-2' }));
          return call();
        });
      app = await startTestApp({ store: test.store, fixture: integrationFixture, startAt: t0, logKey, config: { logMemberIds: mode }, wrapStore: duplicating });
    });
    afterAll(async () => {
      await app.close();
      await client.close();
      await test.cleanup();
    });

    it("logs the refusal's collection, index and code, never the key's value", async () => {
      const line = await failedLine(app, `duplicate-${mode}`);
      expect(line.err).toMatchObject({
        type: 'DatabaseRefusal',
        message: `E11000 duplicate key error collection: ${test.dbName}.planted index: _id_ dup key: {…}`,
        driverError: 'MongoServerError',
        code: 11000,
      });
      const text = JSON.stringify(line);
      expect(text).not.toContain('m-hh-2');
      expect(text).not.toContain('household:hh-1/');
    });
  });
}
