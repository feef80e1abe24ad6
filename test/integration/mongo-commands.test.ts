import { demoFixturePath, readFixtureFile } from '../../server/src/features/load/read-fixture';
import { loadFixture } from '../../server/src/features/load/load-fixture';
import { parseFixture } from '../../server/src/features/load/parse-fixture';
import { fixtureMember } from '../../server/src/test-support/fixture-entries';
import { fixtureKeyId } from '../../server/src/domain/secrets';
import { startMonitoredProcess as startProcess, type MonitoredProcess as Process } from '../support/monitored-process';
import { clockAtWindowStart } from '../support/rate-limit-window';
import { rateLimitWindowMs } from '../../server/src/rate-limit/windows';
import { dropTestDatabase, testMongoSource, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';

/*
 * What a request costs the database, counted with the driver's command
 * monitoring on processes built as main builds them (`depsOf`: the caches,
 * the rate limit's blocks, the outbox and its sweep), one alone and two on
 * one database as a fleet is, after a warm-up. Per operation: the commands
 * of each request itself, before its answer (its request path) and after it
 * (the outbox), exactly; the shared ones that a process makes now and then
 * whatever the traffic (a rate-limit claim per block, a cache's read of a
 * key or session every 2 s, the definitions version once a second),
 * bounded; and the write concern each write sends. bench/README.md has the
 * averages at a fixed load over seconds, where the shared ones are spread.
 */

jest.setTimeout(120_000);

const source = testMongoSource();
const key = 'demo_secret_partner_app_0001';
/** The demo's publishable key, and the one origin of its page. */
const pageKey = 'demo_publishable_partner_web_0001';
const pageOrigin = 'http://127.0.0.1:5173';
/** Requests measured per case, after the warm-up. */
const measured = 40;

/**
 * Commands a process sends now and then for all requests rather than for
 * one: a rate-limit claim, a cache's read of a key or a session (at most
 * once per 2 s each), the origins of the publishable keys for requests
 * from pages (at most once per 2 s), the session keys with the sessions
 * ended since the last read (one aggregate, at most once per 1.5 s), the voucher
 * definitions version (at most once a second).
 */
const shared = new Set(['findAndModify rateLimits', 'aggregate apiKeys', 'aggregate sessions', 'find meta', 'find apiKeys', 'aggregate sessionKeys', 'find endedSessions']);

/** Commands per request of `requests` requests, spread over `fleet` in turn; the outbox delivered before counting ends. */
async function perRequest(fleet: Process[], requests: number, send: (process: Process, i: number) => Promise<number>) {
  await Promise.all(fleet.map((p) => p.store.outbox.settle()));
  for (const p of fleet) p.sent.length = 0;
  const statuses: number[] = [];
  for (let i = 0; i < requests; i++) {
    const process = fleet[i % fleet.length]!;
    statuses.push(await send(process, i));
    await process.store.outbox.settle();
  }
  const all = fleet.flatMap((p) => p.sent).filter((c) => !c.name.startsWith('ping'));
  const own = all.filter((c) => !shared.has(c.name));
  return {
    statuses: [...new Set(statuses)],
    total: all.length / requests,
    /** Each request's own commands, before and after its answer. */
    before: own.filter((c) => !c.afterAnswer).length / requests,
    after: own.filter((c) => c.afterAnswer).length / requests,
    names: [...new Set(own.map((c) => c.name))].sort(),
    /** The shared commands, in all. */
    shared: all.length - own.length,
    writeConcerns: Object.fromEntries(all.filter((c) => c.writeConcern).map((c) => [c.name, c.writeConcern])),
  };
}

/** Shared commands a fleet of `size` may make during one short count: a claim, a read of each cache, and a read of the session keys and ended sessions a second, per process. */
const sharedAllowance = (size: number) => 7 * size;

const sessionStart = (p: Process, member = 'm-alice') =>
  fetch(`${p.base}/client/users/${member}/sessions`, { method: 'POST', headers: { 'x-api-key': key, 'x-identifier-type': 'CARD_NUMBER' } });

async function startSession(p: Process, member = 'm-alice'): Promise<string> {
  const response = await sessionStart(p, member);
  return ((await response.json()) as { sessionToken: string }).sessionToken;
}

const status = async (response: Promise<Response>): Promise<number> => {
  const answered = await response;
  await answered.arrayBuffer();
  return answered.status;
};

const listing = (p: Process, token: string) => status(fetch(`${p.base}/client/users/m-alice/voucher-definitions`, { headers: { 'x-api-key': key, authorization: `Bearer ${token}` } }));

/** Operation A from the member's page: the publishable key, from its origin. */
const pageListing = (p: Process, token: string) =>
  status(fetch(`${p.base}/client/users/m-alice/voucher-definitions`, { headers: { 'x-api-key': pageKey, origin: pageOrigin, authorization: `Bearer ${token}` } }));

const lowering = (p: Process, token: string, member: string, reservation: string, amount: number) =>
  status(
    fetch(`${p.base}/client/users/${member}/reservations/${reservation}`, {
      method: 'PUT',
      headers: { 'x-api-key': key, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reservationAmount: amount }),
    }),
  );

if (source.kind === 'none') {
  it.skip(`MongoDB commands per request: skipped, ${source.reason}`, () => undefined);
} else {
  describe.each([
    ['one process', 1],
    ['a fleet of two processes on one database', 2],
  ])('MongoDB commands per request, %s', (_name, size) => {
    const dbName = uniqueDbName(`commands${size}`);
    let fleet: Process[];
    /** A session of m-alice and of m-hh-1 on each process, used until the test ends (as a partner's app does). */
    let alice: string;
    let household: string;

    beforeAll(async () => {
      // All requests in one of the key's rate-limit windows (they are fixed: rate-limit/windows.ts).
      clockAtWindowStart(fixtureKeyId('partner-app', 0), rateLimitWindowMs);
      fleet = [];
      for (let i = 0; i < size; i++) fleet.push(await startProcess(source.uri, dbName, 6000));
      await fleet[0]!.store.ensureIndexes();
      await loadFixture(fleet[0]!.store, await readFixtureFile(demoFixturePath), new Date());
      // Members no process has read: a session each.
      await loadFixture(fleet[0]!.store, parseFixture({ members: Array.from({ length: measured }, (_, i) => fixtureMember(`m-cmd-${size}-${i}`, 100)) }), new Date());
      alice = await startSession(fleet[0]!);
      household = await startSession(fleet[0]!, 'm-hh-1');
      // Warm-up: every process has claimed its blocks and read the key, the sessions and the listing.
      for (const p of fleet) {
        await status(sessionStart(p));
        for (let i = 0; i < 25; i++) await listing(p, alice);
        await lowering(p, household, 'm-hh-1', 'rt-hh-1', 9500);
      }
    }, 60_000);

    afterAll(async () => {
      await Promise.all(fleet.map((p) => p.close()));
      await dropTestDatabase(source.uri, dbName);
      jest.useRealTimers();
    });

    it('Start Session for members the process has not read: one command, the member\'s read; nothing written (the session is sealed into its token)', async () => {
      const counted = await perRequest(fleet, measured, (p, i) => status(sessionStart(p, `m-cmd-${size}-${i}`)));
      expect(counted.statuses).toEqual([201]);
      expect(counted).toMatchObject({ before: 1, after: 0, names: ['find members'] });
      expect(counted.shared).toBeLessThanOrEqual(sharedAllowance(size));
    });

    it('Start Session for a member the process read in the last 2 s: no command at all', async () => {
      for (const p of fleet) await status(sessionStart(p));
      const counted = await perRequest(fleet, measured, (p) => status(sessionStart(p)));
      expect(counted.statuses).toEqual([201]);
      // Each process reads the member again once its read is 2 s old.
      expect(counted.before).toBeLessThanOrEqual((2 * size) / measured);
      expect(counted.names.every((name) => name === 'find members')).toBe(true);
    });

    it('a token the server did not issue, or a real one with a character changed: no command', async () => {
      const at = alice.length - 3;
      const altered = alice.slice(0, at) + (alice[at] === 'A' ? 'B' : 'A') + alice.slice(at + 1);
      const forged = `st2.k0.${'A'.repeat(200)}`;
      const counted = await perRequest(fleet, measured, (p, i) => listing(p, i % 2 === 0 ? altered : forged));
      expect(counted.statuses).toEqual([401]);
      expect(counted).toMatchObject({ before: 0, after: 0, names: [] });
    });

    it('sign-out: one write (the ended session, w:majority), before the answer', async () => {
      const tokens: string[] = [];
      for (let i = 0; i < 10; i++) tokens.push(await startSession(fleet[i % size]!));
      const counted = await perRequest(fleet, 10, (p, i) =>
        status(fetch(`${p.base}/client/users/m-alice/sessions/current`, { method: 'DELETE', headers: { 'x-api-key': key, authorization: `Bearer ${tokens[i]}` } })),
      );
      expect(counted.statuses).toEqual([204]);
      expect(counted).toMatchObject({ before: 1, after: 0, names: ['update endedSessions'] });
      expect(counted.writeConcerns['update endedSessions']).toEqual({ w: 'majority' });
    });

    it('Operation A: none of its own (the listing kept, the session in its token); only the shared reads of a process now and then', async () => {
      const counted = await perRequest(fleet, measured, (p) => listing(p, alice));
      expect(counted.statuses).toEqual([200]);
      expect(counted).toMatchObject({ before: 0, after: 0, names: [] });
      // Per second and process, whatever the traffic; the bench gives them per request at a fixed load (0.06 at 100 a second).
      expect(counted.shared).toBeLessThanOrEqual(sharedAllowance(size));
    });

    it("Operation A from the member's page, with the publishable key: as with the secret key (the session's own count is kept in memory)", async () => {
      const counted = await perRequest(fleet, measured, (p) => pageListing(p, alice));
      expect(counted.statuses).toEqual([200]);
      expect(counted).toMatchObject({ before: 0, after: 0, names: [] });
      expect(counted.shared).toBeLessThanOrEqual(sharedAllowance(size));
    });

    it(`Operation B, one wallet changed by ${size === 1 ? 'one process' : 'both processes in turn'}: 4, 2 before the answer (the wallet with one reservation, its compare-and-set), 2 after (the outbox); w:majority`, async () => {
      const counted = await perRequest(fleet, measured, (p, i) => lowering(p, household, 'm-hh-1', 'rt-hh-1', 9000 - i));
      expect(counted.statuses).toEqual([200]);
      expect(counted).toMatchObject({ before: 2, after: 2, names: ['aggregate wallets', 'insert audit', 'update reservations', 'update wallets'] });
      expect(counted.shared).toBeLessThanOrEqual(sharedAllowance(size));
      for (const write of ['insert audit', 'update reservations', 'update wallets']) expect(counted.writeConcerns[write]).toEqual({ w: 'majority' });
    });

    it('Operation B with a session the same process has just started: no read of a session, its key or its member (Start Session at most 1, then B 2 before the answer)', async () => {
      const counted = await perRequest(fleet, measured, async (p, i) => lowering(p, await startSession(p, 'm-hh-1'), 'm-hh-1', 'rt-hh-1', 8000 - i));
      expect(counted.statuses).toEqual([200]);
      expect(counted.after).toBe(2);
      expect(counted.before).toBeGreaterThanOrEqual(2);
      // The member's read, once per 2 s per process at most.
      expect(counted.before).toBeLessThanOrEqual(2 + (2 * size) / measured);
      expect(fleet.flatMap((p) => p.sent).filter((c) => c.name === 'aggregate sessions')).toEqual([]);
    });

    it('Operation B, every request on a wallet of its own (offline creations across the demo wallets): the same 4', async () => {
      const members = ['m-alice', 'm-hh2-a'];
      const tokens = await Promise.all(members.map((member) => startSession(fleet[0]!, member)));
      const counted = await perRequest(fleet, measured, (p, i) =>
        status(
          fetch(`${p.base}/client/users/${members[i % 2]}/reservations/rt-commands-${size}-${i}`, {
            method: 'PUT',
            headers: { 'x-api-key': key, authorization: `Bearer ${tokens[i % 2]}`, 'content-type': 'application/json' },
            body: JSON.stringify({ reservationAmount: 1, offline: true }),
          }),
        ),
      );
      expect(counted.statuses).toEqual([200]);
      expect(counted).toMatchObject({ before: 2, after: 2 });
      // The two new sessions are read once by each process (its cache's first miss), as a partner's first call with one is.
      expect(counted.shared).toBeLessThanOrEqual(sharedAllowance(size) + 2 * size);
    });
  });

  describe('MongoDB commands of credentials nobody issued, a fleet of two processes', () => {
    const dbName = uniqueDbName('commandsunknown');
    const refusalsPerMinute = 10;
    let fleet: Process[];

    beforeAll(async () => {
      const limits = { authFailuresPerMinute: refusalsPerMinute };
      fleet = [await startProcess(source.uri, dbName, 6000, limits), await startProcess(source.uri, dbName, 6000, limits)];
      await fleet[0]!.store.ensureIndexes();
      await loadFixture(fleet[0]!.store, await readFixtureFile(demoFixturePath), new Date());
    }, 60_000);

    afterAll(async () => {
      await Promise.all(fleet.map((p) => p.close()));
      await dropTestDatabase(source.uri, dbName);
    });

    const unknownKey = (p: Process, apiKey: string, token?: string) =>
      status(fetch(`${p.base}/client/users/m-alice/voucher-definitions`, { headers: { 'x-api-key': apiKey, ...(token && { authorization: `Bearer ${token}` }) } }));

    it('an unknown key costs one read per process, then none while the process keeps its answer (2 s)', async () => {
      const counted = await perRequest(fleet, 20, (p) => unknownKey(p, 'secret_nobody_issued_0001'));
      expect(counted.statuses).toEqual([401]);
      const reads = fleet.flatMap((p) => p.sent).filter((c) => c.name === 'aggregate apiKeys');
      expect(reads.length).toBe(counted.total * 20);
      // One per process; one more each if the run outlasted the 2 s an answer is kept.
      expect(reads.length).toBeGreaterThanOrEqual(fleet.length);
      expect(reads.length).toBeLessThanOrEqual(2 * fleet.length);
    });

    it('past AUTH_FAILURES_PER_MINUTE an address costs nothing: new unknown keys and tokens are refused 429 with no command, but for one lookup a second', async () => {
      // Each process has counted 10 refusals from this address above: its budget.
      const counted = await perRequest(fleet, 40, (p, i) => (i % 2 === 0 ? unknownKey(p, `secret_guess_${i}`) : unknownKey(p, key, `st_guess_${i}`)));
      const answered = counted.statuses;
      expect(answered.every((s) => s === 401 || s === 429)).toBe(true);
      const lookups = fleet.flatMap((p) => p.sent).filter((c) => !c.name.startsWith('ping'));
      // Only the lookups a second let through read anything: one command each.
      expect(lookups.every((c) => c.name === 'aggregate apiKeys' || c.name === 'aggregate sessions')).toBe(true);
      expect(lookups.length).toBeLessThanOrEqual(40 - 30);
      expect(counted.total).toBeLessThanOrEqual(0.25);
    });
  });

  describe('MongoDB commands of a flood from one key past its limit, a fleet of two processes', () => {
    const dbName = uniqueDbName('commandsflood');
    const limit = 20;
    let fleet: Process[];

    beforeAll(async () => {
      clockAtWindowStart(fixtureKeyId('partner-app', 0), rateLimitWindowMs);
      fleet = [await startProcess(source.uri, dbName, limit), await startProcess(source.uri, dbName, limit)];
      await fleet[0]!.store.ensureIndexes();
      await loadFixture(fleet[0]!.store, await readFixtureFile(demoFixturePath), new Date());
    }, 60_000);

    afterAll(async () => {
      await Promise.all(fleet.map((p) => p.close()));
      await dropTestDatabase(source.uri, dbName);
      jest.useRealTimers();
    });

    it('a refused request costs at most 0.05 commands (refused in memory until the window ends); the claims w:1', async () => {
      const token = await startSession(fleet[0]!);
      // The limit spent, and every process told by a claim that nothing is left.
      const refusedBy = new Set<number>();
      for (let i = 0; refusedBy.size < 2 && i < 10 * limit; i++) if ((await listing(fleet[i % 2]!, token)) === 429) refusedBy.add(i % 2);
      expect(refusedBy.size).toBe(2);
      const claims = fleet.flatMap((p) => p.sent).filter((c) => c.name === 'findAndModify rateLimits');
      expect(claims.length).toBeGreaterThan(0);
      for (const claim of claims) expect(claim.writeConcern).toEqual({ w: 1 });
      const counted = await perRequest(fleet, 200, (p) => listing(p, token));
      expect(counted.statuses).toEqual([429]);
      expect(counted.total).toBeLessThanOrEqual(0.05);
    });
  });
}
