import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Db, MongoClient } from 'mongodb';
import { totalsOf } from '../../server/src/domain/wallet-totals';
import { fixedConnection } from '../../server/src/store/mongo/connection';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { reservationRecord, wallet } from '../../server/src/store/test-support/records';
import { problemsOfAnswer, serviceUnavailableBody } from '../support/answers';
import { keys, t0, testKeyPrefix, type ReliabilityClient } from '../support/fixture';
import { operatorObjects } from '../support/generators';
import { send, type RawRequest, type RawResponse } from '../support/http';
import { startWorld, type World } from '../support/world';

/*
 * Who may do what. Every route needs the client's key; every member route a
 * session of that client, for that member, not expired. 429 per client, 413
 * and 415 as documented, security headers on every answer, no operator
 * object on its way to the database, no credential in the logs, and an audit
 * entry for every reservation change (who, which session, before and after,
 * each member's share), kept in the store.
 */

jest.setTimeout(60_000);

let world: World;
beforeAll(async () => {
  world = await startWorld({ instances: 1 });
});
afterAll(() => world.close());
beforeEach(async () => {
  world.faults.inject(null);
  await world.restore();
});

const url = () => world.urls[0]!;
const session = async (client: ReliabilityClient, member: string, identifierType = 'CARD_NUMBER') =>
  (await world.apis[0]!.session(keys[client], member, identifierType)).sessionToken;

async function expectUnauthorizedAndNothingWritten(req: RawRequest): Promise<RawResponse> {
  const writes = world.spy.writes;
  const before = await world.wallets();
  const res = await send(url(), req);
  expect(problemsOfAnswer(req, res)).toEqual([]);
  expect(res.status).toBe(401);
  expect(res.json).toMatchObject({ statusCode: 401, errorCode: 'UNAUTHORIZED' });
  expect(world.spy.writes).toBe(writes);
  expect(await world.wallets()).toEqual(before);
  return res;
}

type Route = 'startSession' | 'listVoucherDefinitions' | 'updateReservation';
const routes: Record<Route, (member: string) => Omit<RawRequest, 'headers'> & { headers: Record<string, string> }> = {
  startSession: (member) => ({ method: 'POST', path: `/client/users/${member}/sessions`, headers: { 'x-identifier-type': 'CARD_NUMBER' } }),
  listVoucherDefinitions: (member) => ({ method: 'GET', path: `/client/users/${member}/voucher-definitions`, headers: {} }),
  updateReservation: (member) => ({
    method: 'PUT',
    path: `/client/users/${member}/reservations/rt-alice-1`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ reservationAmount: 5000 }),
  }),
};

describe('every route needs the client key', () => {
  const badKeys: Array<[string, string | undefined]> = [
    ['no key', undefined],
    ['an empty key', ''],
    ['an unknown key', `${testKeyPrefix}unknown_app_0009`],
    ['the key in upper case', keys.partner.toUpperCase()],
    ['the key one character short', keys.partner.slice(0, -1)],
    ['two keys in one header', `${keys.partner},${keys.other}`],
    ['a 300-character key', 'k'.repeat(300)],
  ];
  const cases = (Object.keys(routes) as Route[]).flatMap((route) => badKeys.map(([name, key]) => [route, name, key] as const));

  it.each(cases)('%s with %s: 401, nothing written', async (route, _name, key) => {
    const req = routes[route]('m-alice');
    // A valid session of the member: only the key is wrong.
    const token = await session('partner', 'm-alice');
    const headers: Record<string, string> = { ...req.headers, authorization: `Bearer ${token}` };
    if (key !== undefined) headers['x-api-key'] = key;
    await expectUnauthorizedAndNothingWritten({ ...req, headers });
  });

  it('the key is checked before the route exists: an unknown path without a key is a 401 too', async () => {
    await expectUnauthorizedAndNothingWritten({ method: 'GET', path: '/client/nothing/here', headers: {} });
  });
});

describe('every member route needs a session of that client for that member', () => {
  type Case = [string, () => Promise<string | undefined>];
  const badSessions: Case[] = [
    ['no Authorization header', async () => undefined],
    ['an empty bearer', async () => 'Bearer '],
    ['another scheme', async () => `Basic ${await session('partner', 'm-alice')}`],
    ['a token that is no session', async () => 'Bearer st_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ["another member's session of the same client", async () => `Bearer ${await session('partner', 'm-hh-1')}`],
    ["the member's session of another client", async () => `Bearer ${await session('other', 'm-alice')}`],
    ['the session id instead of the token', async () => `Bearer ${(await world.apis[0]!.session(keys.partner, 'm-alice')).sessionId}`],
    ['the API key as the bearer', async () => `Bearer ${keys.partner}`],
    // Another last character than the one it has (a fixed 'A' left one token in 64 unchanged).
    ['the token with a character changed', async () => { const t = await session('partner', 'm-alice'); return `Bearer ${t.slice(0, -1)}${t.endsWith('A') ? 'B' : 'A'}`; }],
    ['the token twice', async () => { const t = await session('partner', 'm-alice'); return `Bearer ${t} ${t}`; }],
  ];
  const memberRoutes: Route[] = ['listVoucherDefinitions', 'updateReservation'];
  const cases = memberRoutes.flatMap((route) => badSessions.map(([name, make]) => [route, name, make] as const));

  it.each(cases)('%s with %s: 401, nothing written', async (route, _name, make) => {
    const req = routes[route]('m-alice');
    const authorization = await make();
    const headers: Record<string, string> = { ...req.headers, 'x-api-key': keys.partner };
    if (authorization !== undefined) headers.authorization = authorization;
    await expectUnauthorizedAndNothingWritten({ ...req, headers });
  });

  it.each(memberRoutes)('%s with the right session: accepted (the table above is not vacuous)', async (route) => {
    const req = routes[route]('m-alice');
    const res = await send(url(), { ...req, headers: { ...req.headers, 'x-api-key': keys.partner, authorization: `Bearer ${await session('partner', 'm-alice')}` } });
    expect(res.status).toBe(200);
  });

  it('a path member that differs only by encoding is the same member; by case it is another', async () => {
    const token = await session('partner', 'm-alice');
    const headers = { 'x-api-key': keys.partner, authorization: `Bearer ${token}` };
    expect((await send(url(), { method: 'GET', path: '/client/users/m%2Dalice/voucher-definitions', headers })).status).toBe(200);
    await expectUnauthorizedAndNothingWritten({ method: 'GET', path: '/client/users/M-ALICE/voucher-definitions', headers });
  });
});

describe('sessions expire', () => {
  afterEach(() => {
    // Put the clock back where the other tests expect it.
    world.advance(-(world.clock().getTime() - t0) / 1000);
  });

  it.each<[ReliabilityClient, number]>([
    ['partner', 3600],
    ['other', 600],
  ])('%s session (lifetime %i s): valid one second before, 401 from the expiry on, on both member routes', async (client, ttl) => {
    const token = await session(client, 'm-alice');
    const list = { method: 'GET', path: '/client/users/m-alice/voucher-definitions', headers: { 'x-api-key': keys[client], authorization: `Bearer ${token}` } };
    const update = { ...routes.updateReservation('m-alice'), headers: { ...routes.updateReservation('m-alice').headers, 'x-api-key': keys[client], authorization: `Bearer ${token}` } };
    world.advance(ttl - 1);
    expect((await send(url(), list)).status).toBe(200);
    world.advance(1);
    await expectUnauthorizedAndNothingWritten(list);
    await expectUnauthorizedAndNothingWritten(update);
    world.advance(86400);
    await expectUnauthorizedAndNothingWritten(list);
  });
});

describe('session tokens', () => {
  it('are sealed (a 96-bit random nonce, the sealed session, a 128-bit tag), unique, and show neither the member nor the session id', async () => {
    const bodies = await Promise.all(Array.from({ length: 100 }, () => world.apis[0]!.session(keys.partner, 'm-alice')));
    expect(new Set(bodies.map((b) => b.sessionToken)).size).toBe(100);
    for (const b of bodies) {
      expect(b.sessionToken).toMatch(/^st2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      // Nonce and tag alone are 28 bytes; the sealed session (its 128-bit random id among it) comes between them.
      expect(Buffer.from(b.sessionToken.split('.')[2]!, 'base64url').length).toBeGreaterThan(28 + 16);
      expect(b.sessionToken).not.toContain('alice');
      expect(b.sessionToken).not.toContain(b.sessionId.replace(/-/g, '').slice(0, 8));
    }
  });
});

describe('rate limit per client key', () => {
  let limited: World;
  beforeAll(async () => {
    limited = await startWorld({ instances: 1, rateLimitPerMinute: 5 });
  });
  afterAll(() => limited.close());

  it('429 in the documented shape with Retry-After once a key passes its limit, on every route; other keys and unknown keys unaffected', async () => {
    const u = limited.urls[0]!;
    const start = (key: string) => send(u, { method: 'POST', path: '/client/users/m-alice/sessions', headers: { 'x-api-key': key, 'x-identifier-type': 'EMAIL' } });
    // Unknown keys are refused before they are counted.
    for (let i = 0; i < 10; i++) expect((await start(`${testKeyPrefix}unknown_0000`)).status).toBe(401);
    const token = (((await start(keys.partner)).json) as { sessionToken: string }).sessionToken;
    for (let i = 0; i < 4; i++) expect((await start(keys.partner)).status).toBe(201);

    const before = await limited.wallets();
    const writes = limited.spy.writes;
    const reqs: RawRequest[] = [
      { method: 'POST', path: '/client/users/m-alice/sessions', headers: { 'x-api-key': keys.partner, 'x-identifier-type': 'EMAIL' } },
      { method: 'GET', path: '/client/users/m-alice/voucher-definitions', headers: { 'x-api-key': keys.partner, authorization: `Bearer ${token}` } },
      { method: 'PUT', path: '/client/users/m-alice/reservations/rt-alice-1', headers: { 'x-api-key': keys.partner, authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"reservationAmount":1}' },
      { method: 'GET', path: '/client/users/m-alice/nowhere', headers: { 'x-api-key': keys.partner } },
    ];
    for (const req of reqs) {
      const res = await send(u, req);
      expect(res.status).toBe(429);
      expect(res.json).toEqual({ statusCode: 429, errorCode: 'TOO_MANY_REQUESTS', errorMessage: expect.any(String) });
      expect(problemsOfAnswer(req, res)).toEqual([]);
    }
    expect(limited.spy.writes).toBe(writes);
    expect(await limited.wallets()).toEqual(before);
    // Another client still has its whole allowance.
    expect((await start(keys.other)).status).toBe(201);
  });
});

describe('413 and 415 as documented', () => {
  const put = async (token: string, headers: Record<string, string>, body: string | Buffer): Promise<[RawRequest, RawResponse]> => {
    const req = { method: 'PUT', path: '/client/users/m-alice/reservations/rt-alice-1', headers: { 'x-api-key': keys.partner, authorization: `Bearer ${token}`, ...headers }, body };
    return [req, await send(url(), req)];
  };
  const big = JSON.stringify({ reservationAmount: 1, channel: 'CUX', padding: 'x'.repeat(17000) });

  it.each<[string, number, Record<string, string>, string | Buffer]>([
    ['a JSON body over 16 KiB', 413, { 'content-type': 'application/json' }, big],
    ['a gzip body (no content coding is taken)', 415, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync(big)],
    ['a text/plain body', 415, { 'content-type': 'text/plain' }, '{"reservationAmount":1}'],
    ['a form body', 415, { 'content-type': 'application/x-www-form-urlencoded' }, 'reservationAmount=1'],
    ['a body without a content type', 415, {}, '{"reservationAmount":1}'],
    ['a JSON body in Latin-1', 415, { 'content-type': 'application/json; charset=latin1' }, '{"reservationAmount":1}'],
  ])('%s: %i in the documented shape, nothing written', async (_name, status, headers, body) => {
    const token = await session('partner', 'm-alice');
    const writes = world.spy.writes;
    const before = await world.wallets();
    const [req, res] = await put(token, headers, body);
    expect(res.status).toBe(status);
    expect(problemsOfAnswer(req, res)).toEqual([]);
    expect(world.spy.writes).toBe(writes);
    expect(await world.wallets()).toEqual(before);
  });
});

describe('security headers on every answer, errors included', () => {
  it('200, 201, 400, 401, 404, 405, 413, 415, 500, 503 and the operational routes', async () => {
    const token = await session('partner', 'm-alice');
    const auth = { 'x-api-key': keys.partner, authorization: `Bearer ${token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const reqs: Array<[RawRequest, number]> = [
      [{ method: 'GET', path: '/client/users/m-alice/voucher-definitions', headers: auth }, 200],
      [{ method: 'POST', path: '/client/users/m-alice/sessions', headers: { 'x-api-key': keys.partner, 'x-identifier-type': 'EMAIL' } }, 201],
      [{ method: 'PUT', path: '/client/users/m-alice/reservations/rt-alice-1', headers: json, body: '{}' }, 400],
      [{ method: 'GET', path: '/client/users/m-alice/voucher-definitions', headers: {} }, 401],
      [{ method: 'GET', path: '/client/users/m-alice/elsewhere', headers: auth }, 404],
      [{ method: 'DELETE', path: '/client/users/m-alice/sessions', headers: auth }, 405],
      [{ method: 'PUT', path: '/client/users/m-alice/reservations/rt-alice-1', headers: json, body: 'x'.repeat(20000) }, 413],
      [{ method: 'PUT', path: '/client/users/m-alice/reservations/rt-alice-1', headers: { ...auth, 'content-type': 'text/plain' }, body: 'x' }, 415],
      [{ method: 'GET', path: '/healthz' }, 200],
      [{ method: 'GET', path: '/readyz' }, 200],
      [{ method: 'GET', path: '/openapi.json' }, 200],
    ];
    for (const [req, status] of reqs) {
      const res = await send(url(), req);
      expect(res.status).toBe(status);
      expect(problemsOfAnswer(req, res)).toEqual([]);
    }
    world.faults.inject({ fault: 'error', methods: ['listPublishedVoucherDefinitions'], times: 1 });
    const failing = reqs[0]![0];
    const crashed = await send(url(), failing);
    expect(crashed.status).toBe(500);
    expect(problemsOfAnswer(failing, crashed).filter((p) => !/server error/.test(p))).toEqual([]);
    world.faults.inject({ fault: 'unavailable', methods: ['listPublishedVoucherDefinitions'], times: 1 });
    const down = await send(url(), failing);
    expect(down.json).toEqual(serviceUnavailableBody);
    expect(problemsOfAnswer(failing, down, { allow503: true })).toEqual([]);
  });
});

describe('no operator injection reaches the store', () => {
  it('operator objects and odd strings in every client-controlled place reach the store as plain strings, or not at all', async () => {
    const token = await session('partner', 'm-alice');
    world.spy.violations.splice(0);
    const payloads = fc.sample(operatorObjects, { numRuns: 40, seed: 1 });
    for (const payload of payloads) {
      const text = JSON.stringify(payload);
      const reqs: RawRequest[] = [
        { method: 'GET', path: `/client/users/${encodeURIComponent(text)}/voucher-definitions`, headers: { 'x-api-key': keys.partner, authorization: `Bearer ${token}` } },
        { method: 'GET', path: `/client/users/m-alice/voucher-definitions?businessUnit=${encodeURIComponent(text)}`, headers: { 'x-api-key': keys.partner, authorization: `Bearer ${token}` } },
        { method: 'GET', path: '/client/users/m-alice/voucher-definitions?businessUnit[$ne]=x', headers: { 'x-api-key': keys.partner, authorization: `Bearer ${token}` } },
        { method: 'POST', path: '/client/users/m-alice/sessions', headers: { 'x-api-key': text, 'x-identifier-type': 'EMAIL' } },
        { method: 'GET', path: '/client/users/m-alice/voucher-definitions', headers: { 'x-api-key': keys.partner, authorization: `Bearer ${text}` } },
        ...['reservationAmount', 'redemptionId', 'redeemerId', 'channel', 'offline'].map((field) => ({
          method: 'PUT',
          path: `/client/users/m-alice/reservations/${encodeURIComponent(text)}`,
          headers: { 'x-api-key': keys.partner, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ reservationAmount: 1, redemptionId: 'rd-100', redeemerId: 'm-alice', offline: true, [field]: payload }),
        })),
        {
          method: 'PUT',
          path: '/client/users/m-alice/reservations/rt-alice-1',
          headers: { 'x-api-key': keys.partner, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ reservationAmount: 9000, redemptionId: 'rd-100', redeemerId: 'm-alice', catalogueItems: [{ productCode: payload }, { productCode: '0000000001', quantity: payload }] }),
        },
      ];
      for (const req of reqs) {
        const res = await send(url(), req);
        expect(problemsOfAnswer(req, res)).toEqual([]);
      }
    }
    expect(world.spy.violations).toEqual([]);
  });

  it('the MongoDB adapter puts only strings (and its own operators) into the filters it sends, whatever it is given', async () => {
    const filters: unknown[] = [];
    const cursor = (args: unknown[]) => ({ sort() { return this; }, toArray: async () => { filters.push(args[0]); return []; } });
    const collection = (name: string) => ({
      collectionName: name,
      findOne: async (filter: unknown) => { filters.push(filter); return null; },
      find: (...args: unknown[]) => cursor(args),
      aggregate: (pipeline: unknown[]) => ({ toArray: async () => { filters.push(pipeline); return []; } }),
      replaceOne: async (filter: unknown) => { filters.push(filter); return { matchedCount: 0 }; },
      updateOne: async (filter: unknown) => { filters.push(filter); return { matchedCount: 0 }; },
      insertOne: async () => ({}),
    });
    // connect() needs a server: the driver is replaced by a recording fake.
    const store = MongoStore.over(fixedConnection({ close: async () => undefined } as unknown as MongoClient, { collection } as unknown as Db));
    const hostile = fc.sample(operatorObjects, { numRuns: 30, seed: 2 }) as string[];
    for (const value of hostile) {
      await store.findApiKey(value);
      await store.findClient(value);
      await store.listApiKeys(value);
      await store.findMember(value);
      await store.findSession(value);
      await store.findSessionContext(value);
      await store.listPublishedVoucherDefinitions(value, 'CUX');
      await store.listPublishedVoucherDefinitions('LCL', value);
      await store.findCatalogueItems([value, '0000000001']);
      await store.findRedemption(value);
      await store.loadWallet(value);
      await store.listAudit(value);
      await store.loadWalletSlice(value, { clientId: 'c', correlationId: 'm', reservationToken: 'rt' });
      await store.loadWalletSlice('member:m', { clientId: value, correlationId: value, reservationToken: value });
      await expect(store.saveWallet(wallet(value, {}, [], { version: 1 }), 1)).rejects.toThrow();
      const reservation = reservationRecord(value, 'm', { m: 1 }, { clientId: 'c' });
      await expect(store.saveReservationChange({ walletId: 'member:m', reservation, totals: totalsOf([]), audit: null }, 1)).rejects.toThrow();
    }
    // The adapter's own: the listing's filters, the whole read's, and the slice read's pipeline.
    const ownOperators = new Set(['$in', '$or', '$exists', '$size', '$match', '$project', '$lookup']);
    const problems: string[] = [];
    const walk = (value: unknown, at: string) => {
      if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${at}[${i}]`));
      else if (value && typeof value === 'object') {
        for (const [key, child] of Object.entries(value)) {
          if (key.startsWith('$') && !ownOperators.has(key)) problems.push(`${at}.${key}`);
          walk(child, `${at}.${key}`);
        }
      } else if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') problems.push(`${at} = ${String(value)}`);
    };
    filters.forEach((filter, i) => walk(filter, `filter${i}`));
    expect(problems).toEqual([]);
    // Only the fixed lookups ran (hostile keys match nothing and are not sent at all).
    expect(filters.every((f) => JSON.stringify(f).includes('0000000001') || JSON.stringify(f).includes('LCL') || JSON.stringify(f).includes('CUX'))).toBe(true);
  });
});

describe('the audit trail', () => {
  it('records each reservation change in the store: who, which session, before and after, each member share', async () => {
    const api = world.apis[0]!;
    const steps: Array<{ member: string; body: Record<string, unknown>; action: 'CREATE' | 'UPDATE' | null }> = [
      { member: 'm-hh-2', body: { reservationAmount: 25000, offline: true }, action: 'CREATE' },
      { member: 'm-hh-2', body: { reservationAmount: 25000, offline: true }, action: null }, // a repeat: nothing changes
      { member: 'm-hh-2', body: { reservationAmount: 20001 }, action: 'UPDATE' },
      { member: 'm-hh-2', body: { reservationAmount: 20001, extendedExpiry: true }, action: 'UPDATE' },
      { member: 'm-hh-2', body: { reservationAmount: 30000 }, action: null }, // rejected: raises
      { member: 'm-hh-2', body: { reservationAmount: 0 }, action: 'UPDATE' },
    ];
    const sessions: string[] = [];
    for (const step of steps) {
      const started = await api.session(keys.partner, step.member);
      sessions.push(started.sessionId);
      const res = await api.update(keys.partner, started.sessionToken, step.member, 'rt-audited', step.body);
      expect(res.status).toBe(step.body.reservationAmount === 30000 ? 400 : 200);
    }
    await world.settled();
    const trail = await world.base.listAudit('rt-audited');
    const expected = steps.map((s, i) => [s, sessions[i]] as const).filter(([s]) => s.action !== null);
    expect(trail.map((e) => [e.action, e.sessionId])).toEqual(expected.map(([s, id]) => [s.action, id]));
    for (const entry of trail) {
      expect(entry).toMatchObject({ clientId: 'partner-app', correlationId: 'm-hh-2', reservationToken: 'rt-audited' });
      const before = new Map((entry.before?.contributions ?? []).map((c) => [c.correlationId, c.points]));
      const after = new Map(entry.after.contributions.map((c) => [c.correlationId, c.points]));
      for (const share of entry.shares) expect(share.points).toBe((before.get(share.correlationId) ?? 0) - (after.get(share.correlationId) ?? 0));
      expect(entry.shares.reduce((sum, s) => sum + s.points, 0)).toBe((entry.before?.reservationAmount ?? 0) - entry.after.reservationAmount);
    }
    // The creation drew on m-hh-2's own 12999 available points first, then on the richest other member
    // (m-hh-1, 22499 available); lowering by 4999 gave back 4999 * 12999/25000 and 4999 * 12001/25000,
    // the one leftover point to the larger remainder (m-hh-1's).
    expect(trail[0]!.shares).toEqual([
      { correlationId: 'm-hh-2', points: -12999 },
      { correlationId: 'm-hh-1', points: -12001 },
    ]);
    expect(trail[1]!.shares).toEqual([
      { correlationId: 'm-hh-2', points: 2599 },
      { correlationId: 'm-hh-1', points: 2400 },
    ]);
    expect((await world.audit()).problems).toEqual([]);
  });
});

describe('logs', () => {
  it('never carry an API key or a session token (checked on every line the servers logged in this file)', () => {
    expect(world.logs.lines).toBeGreaterThan(100);
    expect(world.logs.credentialLeaks).toEqual([]);
  });
});
