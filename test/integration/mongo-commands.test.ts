import type { AddressInfo } from 'node:net';
import type { Server, ServerResponse } from 'node:http';
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { pino } from 'pino';
import { createApp } from '../../server/src/app';
import { createServices } from '../../server/src/features';
import { createHttpServer } from '../../server/src/http/http-server';
import { rateLimitWindowSeconds } from '../../server/src/http/rate-limit';
import { demoFixturePath, loadFixture, readFixtureFile } from '../../server/src/store/fixture';
import { fixedConnection } from '../../server/src/store/mongo/connection';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { windowWithRoom } from '../../server/src/store/mongo/test-support/quota-window-room';
import { testMongoSource, uniqueDbName } from '../../server/src/store/mongo/test-support/mongo-test-server';

/*
 * The MongoDB commands each operation sends, as the driver's command
 * monitoring sees them: those sent before the answer (its request path) and
 * those sent after it. A guard against a round trip creeping back; the
 * numbers, and those before the change, are in bench/README.md.
 */

const source = testMongoSource();

if (source.kind === 'none') {
  it.skip(`MongoDB commands per operation: skipped, ${source.reason}`, () => undefined);
} else {
  describe('MongoDB commands per operation (rate limit on, shared by the fleet)', () => {
    const dbName = uniqueDbName('commands');
    const key = 'pk_test_partner_app_0001';
    let client: MongoClient;
    let server: Server;
    let base: string;
    let drain: () => Promise<void>;
    const sent: string[] = [];
    let answeredAt = 0;

    beforeAll(async () => {
      client = await new MongoClient(source.uri, { monitorCommands: true, ignoreUndefined: true, serverSelectionTimeoutMS: 10_000 }).connect();
      const store = MongoStore.over(fixedConnection(client, client.db(dbName)));
      await store.ensureIndexes();
      await loadFixture(store, await readFixtureFile(demoFixturePath), new Date());
      const services = createServices({ store, clock: () => new Date() });
      drain = () => store.drainOutbox();
      const app = await createApp({
        services,
        store,
        logger: pino({ level: 'silent' }),
        config: { rateLimitPerMinute: 6000, bodyLimitBytes: 16384, trustProxy: false },
        requestCounter: store.requestCounter(6000, rateLimitWindowSeconds),
      });
      server = await new Promise((resolve) => {
        const listening = createHttpServer(app).listen(0, '127.0.0.1', () => resolve(listening));
      });
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      client.on('commandStarted', (event: CommandStartedEvent) => sent.push(`${event.commandName} ${String(event.command[event.commandName])}`));
      // The rate limit claims a block of the key's window on its first request (Start Session); all
      // the requests here then fall in that window and spend that block.
      await windowWithRoom('partner-app', rateLimitWindowSeconds * 1000, 20_000);
      // Where the answer starts: the commands sent until then are its request path.
      server.on('request', (_req, res: ServerResponse) => {
        const writeHead = res.writeHead;
        res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
          answeredAt = sent.length;
          return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
        } as typeof res.writeHead;
      });
    }, 60_000);

    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await drain();
      await client.db(dbName).dropDatabase();
      await client.close();
    });

    /** The commands a request sent before its answer, and after it (until the service has nothing left to do). */
    async function commandsOf(request: () => Promise<Response>): Promise<{ status: number; before: string[]; after: string[] }> {
      await drain();
      sent.length = 0;
      const response = await request();
      await response.arrayBuffer();
      await drain();
      return { status: response.status, before: sent.slice(0, answeredAt), after: sent.slice(answeredAt) };
    }

    let token = '';
    const member = () => ({ 'x-api-key': key, authorization: `Bearer ${token}` });
    const put = (reservationToken: string, body: unknown) => () =>
      fetch(`${base}/client/users/m-alice/reservations/${reservationToken}`, {
        method: 'PUT',
        headers: { ...member(), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    it("Start Session: key with its client (one aggregate), the rate limit's first block of the window, member, insert", async () => {
      const measured = await commandsOf(async () => {
        const response = await fetch(`${base}/client/users/m-alice/sessions`, { method: 'POST', headers: { 'x-api-key': key, 'x-identifier-type': 'CARD_NUMBER' } });
        token = ((await response.clone().json()) as { sessionToken: string }).sessionToken;
        return response;
      });
      expect(measured).toEqual({
        status: 201,
        before: ['aggregate apiKeys', 'findAndModify rateLimits', 'find members', 'insert sessions'],
        after: [],
      });
    });

    it('Operation A: the session with its client and member in one aggregate, definitions (the rate limit spends its block)', async () => {
      const measured = await commandsOf(() => fetch(`${base}/client/users/m-alice/voucher-definitions`, { headers: member() }));
      expect(measured).toEqual({
        status: 200,
        before: ['aggregate sessions', 'find voucherDefinitions'],
        after: [],
      });
    });

    it('Operation B: credentials, the wallet with one reservation, one compare-and-set; the copies after the answer', async () => {
      // The demo wallet of m-alice starts without an expired reservation: its slices are fresh.
      await commandsOf(put('rt-alice-1', { reservationAmount: 9000 }));
      const measured = await commandsOf(put('rt-alice-1', { reservationAmount: 8000 }));
      expect(measured).toEqual({
        status: 200,
        before: ['aggregate sessions', 'aggregate wallets', 'update wallets'],
        // The change's outbox: its reservation to its document, then its audit entry to the trail.
        after: ['update reservations', 'insert audit'],
      });
      expect(measured.after).toHaveLength(2);
    });

    it('Operation B, an offline creation: the same', async () => {
      const measured = await commandsOf(put('rt-commands-new', { reservationAmount: 100, offline: true }));
      expect(measured.status).toBe(200);
      expect(measured.before).toEqual(['aggregate sessions', 'aggregate wallets', 'update wallets']);
      expect(measured.after).toHaveLength(2);
    });
  });
}
