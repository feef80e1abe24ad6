import { systemClock } from '../../server/src/domain/clock';
import { fixtureKeyId } from '../../server/src/domain/secrets';
import type { AuditEntry, Wallet } from '../../server/src/domain/model';
import { loadFixture } from '../../server/src/features/load/load-fixture';
import { parseFixture } from '../../server/src/features/load/parse-fixture';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { blockBounds } from '../../server/src/rate-limit/block-sizing';
import { rateLimitWindowMs } from '../../server/src/rate-limit/windows';
import { dropTestDatabase, describeOnMongoDB, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import { clientIds, dailyCaps, keys, reliabilityFixture, walletIds } from '../support/fixture';
import { api, type Api } from '../support/http';
import { clockAtWindowStart } from '../support/rate-limit-window';
import { auditProblems, conservationProblems, reservationKey, totalsProblems } from '../support/invariants';

/*
 * A fleet: two server processes' worth of the production wiring
 * (`startServer` with main's buildDeps), each with its own MongoDB client,
 * services, caches and rate limiter, on ONE database, as several processes behind a load balancer
 * would be. Sessions work across them, racing changes of the same
 * reservation conserve points (checked on what the database holds), and the
 * rate limit counts for both together. Runs whenever MONGODB_URI is set.
 */

jest.setTimeout(120_000);

/** As operators would set it: 600 requests spread over both processes must not get more than this through. */
const limit = 300;

describeOnMongoDB('a fleet of two processes on one MongoDB', (uri) => {
  const dbName = uniqueDbName('fleet');
  let fleet: TestApp | undefined;
  let apis: Api[];
  let initial: Map<string, Wallet>;

  const connect = () => MongoStore.connect({ uri, dbName, serverSelectionTimeoutMS: 10_000 });

  beforeAll(async () => {
    const seeding = await connect();
    await loadFixture(seeding, parseFixture(reliabilityFixture), systemClock());
    initial = await wallets(seeding);
    await seeding.close();

    // The rate limit's test below counts in one window of the key (they are fixed: rate-limit/windows.ts).
    clockAtWindowStart(fixtureKeyId(clientIds.capped, 0), rateLimitWindowMs);
    // main's own wiring (buildDeps): its caches, its rate limit, its outbox sweep.
    fleet = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: String(limit), LOG_LEVEL: 'silent', METRICS: 'off', MONGODB_URI: uri, MONGODB_DB: dbName }, instances: 2 });
    apis = fleet.urls.map((url) => api(url));
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    await dropTestDatabase(uri, dbName);
    jest.useRealTimers();
  }, 60_000);

  /** The wallets as the database holds them, read through a client of its own. */
  async function wallets(store?: MongoStore): Promise<Map<string, Wallet>> {
    const reader = store ?? (await connect());
    const state = new Map<string, Wallet>();
    for (const id of walletIds) {
      const wallet = await reader.loadWallet(id);
      if (wallet) state.set(id, wallet);
    }
    if (!store) await reader.close();
    return state;
  }

  async function problems(tokens: string[]): Promise<string[]> {
    // Reading every wallet delivers the last change's outbox where its process has not yet (the earlier ones were, before their next change).
    const reader = await connect();
    try {
      const state = await wallets(reader);
      const audit: AuditEntry[] = [];
      for (const token of tokens) audit.push(...(await reader.listAudit(token)));
      const totals: string[] = [];
      for (const [id, wallet] of state) {
        totals.push(...totalsProblems(id, wallet, await reader.loadWalletSlice(id, { clientId: '', correlationId: '', reservationToken: '' })));
      }
      return [...conservationProblems({ wallets: state, initial, now: new Date(), caps: dailyCaps }), ...auditProblems(state, initial, audit).problems, ...totals];
    } finally {
      await reader.close();
    }
  }

  it('a session started on one process works on the other', async () => {
    const { sessionToken } = await apis[0]!.session(keys.partner, 'm-alice');
    expect((await apis[1]!.listVouchers(keys.partner, sessionToken, 'm-alice')).status).toBe(200);
    const lowered = await apis[1]!.update(keys.partner, sessionToken, 'm-alice', 'rt-alice-1', { reservationAmount: 9000 });
    expect(lowered.status).toBe(200);
    expect(lowered.json).toMatchObject({ reservationToken: 'rt-alice-1' });
    expect((await apis[0]!.update(keys.partner, sessionToken, 'm-alice', 'rt-alice-1', { reservationAmount: 9500 })).json).toMatchObject({
      errorMessage: 'New reservation amount cannot be greater than existing reservation amount',
    });
  });

  it('racing lowerings and offline creations of the same tokens on both processes conserve points, every change audited once', async () => {
    const { sessionToken } = await apis[0]!.session(keys.partner, 'm-hh-1');
    const requests = Array.from({ length: 24 }, (_, i) => {
      const through = apis[i % 2]!;
      // Lowerings of one household reservation to amounts in any order, and creations of one new token.
      return i % 3 === 2
        ? through.update(keys.partner, sessionToken, 'm-hh-1', 'rt-fleet-new', { reservationAmount: 700, offline: true })
        : through.update(keys.partner, sessionToken, 'm-hh-1', 'rt-hh-1', { reservationAmount: 9000 - 300 * ((i * 7) % 24) });
    });
    const answers = await Promise.all(requests);
    // Every answer is a success or a documented refusal of a raise (someone lowered further first); none failed.
    for (const answer of answers) {
      expect([200, 400]).toContain(answer.status);
      if (answer.status === 400) expect(answer.json).toMatchObject({ errorMessage: 'New reservation amount cannot be greater than existing reservation amount' });
    }
    expect(await problems(['rt-hh-1', 'rt-fleet-new', 'rt-alice-1'])).toEqual([]);
    const created = (await wallets()).get('household:hh-1')?.reservations.filter((r) => r.reservationToken === 'rt-fleet-new');
    expect(created?.map((r) => r.reservationAmount)).toEqual([700]);
    const trail = await (async () => {
      const reader = await connect();
      try {
        return await reader.listAudit('rt-fleet-new');
      } finally {
        await reader.close();
      }
    })();
    expect(trail.filter((e) => e.action === 'CREATE').map((e) => reservationKey(e))).toHaveLength(1);
  });

  it(`the rate limit (${limit} a minute) holds for both processes together: ${2 * limit} requests of one key, ${limit} accepted (within 2 %)`, async () => {
    const answers = [];
    // Twenty at a time, alternating between the processes, as a load balancer spreads them.
    for (let sent = 0; sent < 2 * limit; sent += 20) {
      answers.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => apis[(sent + i) % 2]!.startSession(keys.capped, 'm-bob')))));
    }
    expect(answers.filter((a) => a.status !== 201 && a.status !== 429)).toEqual([]);
    // Each process spends the blocks it holds before it refuses: together, the limit.
    const accepted = answers.filter((a) => a.status === 201).length;
    expect(accepted).toBeLessThanOrEqual(Math.floor(limit * 1.02));
    expect(accepted).toBeGreaterThanOrEqual(limit - 2 * blockBounds(limit).max);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(2 * limit - accepted);
    for (const a of refused) expect(a.headers['retry-after']).toMatch(/^\d+$/);
  });
});
