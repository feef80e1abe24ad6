import fc from 'fast-check';
import { connectTestStore, testMongoSource } from '../../server/src/store/test-support/mongo-test-server';
import type { Store } from '../../server/src/store/port';
import { keys } from '../support/fixture';
import { runs } from '../support/generators';
import type { RawResponse } from '../support/http';
import { startWorld, type World } from '../support/world';

/*
 * The race tests, all of them: two instances of the server (each its own
 * services, as two processes would have) over ONE store, with a little random
 * latency on every store call so that concurrent requests really interleave
 * between reading a wallet and writing it back (over the bare in-process
 * store one request runs from its read to its write before the next begins:
 * no race at all). Checked on the store's state after each burst: balances
 * conserved, nothing negative, the daily cap never passed, and the audit
 * trail one unbroken chain per reservation (a lost update breaks it).
 *
 * Runs over the MemoryStore always, and over MongoDB when one is reachable.
 */

jest.setTimeout(120_000);

type StoreFactory = () => Promise<{ store: Store; cleanup: () => Promise<void> }>;

const memory: StoreFactory | null = null; // the world's default MemoryStore
const mongoSource = testMongoSource();
const mongoFactory: StoreFactory = () => connectTestStore((mongoSource as { uri: string }).uri, 'reliability-races');

const variants: Array<[string, StoreFactory | null]> = [['MemoryStore', memory]];
if (mongoSource.kind !== 'none') variants.push(['MongoStore', mongoFactory]);
else it.skip(`races over MongoStore: skipped, ${mongoSource.reason}`, () => undefined);

describe.each(variants)('races across two instances over one %s', (_name, factory) => {
  let world: World;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const made = factory ? await factory() : null;
    if (made) cleanup = made.cleanup;
    world = await startWorld({ instances: 2, latency: { minMs: 0, maxMs: 3, seed: 7 }, ...(made ? { baseStore: made.store } : {}) });
  });
  afterAll(async () => {
    await world?.close();
    await cleanup();
  });

  /** Sessions of `member` for `key`, several (each request picks one), started on alternating instances. */
  async function sessions(key: string, member: string, count = 4): Promise<string[]> {
    const tokens: string[] = [];
    for (let i = 0; i < count; i++) tokens.push((await world.apis[i % 2]!.session(key, member)).sessionToken);
    return tokens;
  }

  async function expectHealthyState(responses: RawResponse[] = []): Promise<void> {
    const problems = [...(await world.conservation()), ...(await world.audit()).problems, ...world.spy.violations.splice(0)];
    for (const res of responses) if (res.status >= 500) problems.push(`a ${res.status}: ${res.text}`);
    expect(problems).toEqual([]);
  }

  const messageOf = (res: RawResponse) => (res.json as { errorMessage?: string } | undefined)?.errorMessage;

  it('concurrent lowerings of one household reservation: the lowest wins, every returned point is audited once', async () => {
    const hh1 = await sessions(keys.partner, 'm-hh-1');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 10000 }), { minLength: 2, maxLength: 30 }), async (targets) => {
        await world.restore();
        const responses = await Promise.all(
          targets.map((amount, i) => world.apis[i % 2]!.update(keys.partner, hh1[i % hh1.length]!, 'm-hh-1', 'rt-hh-1', { reservationAmount: amount })),
        );
        for (const res of responses) {
          if (res.status !== 200) expect(messageOf(res)).toBe('New reservation amount cannot be greater than existing reservation amount');
        }
        const lowest = Math.min(...targets);
        const wallet = (await world.base.loadWallet('household:hh-1'))!;
        expect(wallet.reservations.find((r) => r.reservationToken === 'rt-hh-1')?.reservationAmount).toBe(lowest);
        const audit = await world.audit();
        expect(audit.returned).toBe(10000 - lowest);
        await expectHealthyState(responses);
      }),
      runs(15),
    );
  });

  it('concurrent offline creations by two household members: never more than the household has', async () => {
    const hh1 = await sessions(keys.partner, 'm-hh-1', 2);
    const hh2 = await sessions(keys.partner, 'm-hh-2', 2);
    // 51000 points, 15003 held by rt-hh-1, rt-odd and rt-hh-2: 35997 available to REDEEM members.
    const available = 35997;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1000, max: 9000 }), fc.integer({ min: 2, max: 30 }), async (amount, count) => {
        await world.restore();
        const responses = await Promise.all(
          Array.from({ length: count }, (_, i) => {
            const [member, tokens] = i % 2 === 0 ? ['m-hh-1', hh1] : ['m-hh-2', hh2];
            return world.apis[(i >> 1) % 2]!.update(keys.partner, tokens[i % 2]!, member, `rt-race-${i}`, { reservationAmount: amount, offline: true });
          }),
        );
        const ok = responses.filter((r) => r.status === 200);
        expect(ok).toHaveLength(Math.min(count, Math.floor(available / amount)));
        for (const res of responses.filter((r) => r.status !== 200)) expect(messageOf(res)).toBe('Insufficient points balance');
        // Every confirmed reservation is in the store (none overwritten by a concurrent save).
        const wallet = (await world.base.loadWallet('household:hh-1'))!;
        for (const res of ok) {
          const token = (res.json as { reservationToken: string }).reservationToken;
          expect(wallet.reservations.find((r) => r.reservationToken === token)?.reservationAmount).toBe(amount);
        }
        await expectHealthyState(responses);
      }),
      runs(12),
    );
  });

  it('concurrent creations against a daily cap: the cap is never passed; excluded ones do not count', async () => {
    const bob = await sessions(keys.capped, 'm-bob');
    // capped-app: cap 6000 a day; m-bob holds 5000 made today: room for 1000.
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 5 }), async (amount, count, excluded) => {
        await world.restore();
        const capped = Array.from({ length: count }, (_, i) =>
          world.apis[i % 2]!.update(keys.capped, bob[i % bob.length]!, 'm-bob', `rt-cap-${i}`, { reservationAmount: amount, offline: true }),
        );
        const exempt = Array.from({ length: excluded }, (_, i) =>
          world.apis[i % 2]!.update(keys.capped, bob[i % bob.length]!, 'm-bob', `rt-exempt-${i}`, { reservationAmount: 1000, offline: true, isExcludedFromCap: true }),
        );
        const [cappedResponses, exemptResponses] = await Promise.all([Promise.all(capped), Promise.all(exempt)]);
        expect(cappedResponses.filter((r) => r.status === 200)).toHaveLength(Math.min(count, Math.floor(1000 / amount)));
        for (const res of cappedResponses.filter((r) => r.status !== 200)) expect(messageOf(res)).toBe('Redemption cap exceeded');
        expect(exemptResponses.map((r) => r.status)).toEqual(exemptResponses.map(() => 200));
        await expectHealthyState([...cappedResponses, ...exemptResponses]);
      }),
      runs(12),
    );
  });

  it('concurrent session starts on one member across both instances: each its own, each usable on the other instance', async () => {
    const started = await Promise.all(Array.from({ length: 40 }, (_, i) => world.apis[i % 2]!.startSession(keys.partner, 'm-hh-1', 'CARD_NUMBER')));
    expect(started.map((r) => r.status)).toEqual(started.map(() => 201));
    const bodies = started.map((r) => r.json as { sessionToken: string; sessionId: string });
    expect(new Set(bodies.map((b) => b.sessionToken)).size).toBe(40);
    expect(new Set(bodies.map((b) => b.sessionId)).size).toBe(40);
    const used = await Promise.all(bodies.map((b, i) => world.apis[(i + 1) % 2]!.listVouchers(keys.partner, b.sessionToken, 'm-hh-1')));
    expect(used.map((r) => r.status)).toEqual(used.map(() => 200));
  });

  it('a mixed burst on one household (lowerings, creations, repeats, session starts) keeps every rule', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('lower' as const), member: fc.constantFrom('m-hh-1', 'm-hh-2'), amount: fc.integer({ min: 0, max: 10000 }) }),
      fc.record({ kind: fc.constant('create' as const), member: fc.constantFrom('m-hh-1', 'm-hh-2', 'm-hh-3'), amount: fc.integer({ min: 0, max: 12000 }), token: fc.nat({ max: 8 }) }),
      fc.record({ kind: fc.constant('items' as const), quantity: fc.integer({ min: 1, max: 4 }), token: fc.nat({ max: 8 }) }),
      fc.record({ kind: fc.constant('session' as const), member: fc.constantFrom('m-hh-1', 'm-hh-2', 'm-hh-3') }),
    );
    const tokens = { 'm-hh-1': await sessions(keys.partner, 'm-hh-1', 2), 'm-hh-2': await sessions(keys.partner, 'm-hh-2', 2), 'm-hh-3': await sessions(keys.partner, 'm-hh-3', 2) };
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40 }), async (ops) => {
        await world.restore();
        const responses = await Promise.all(
          ops.map((o, i) => {
            const api = world.apis[i % 2]!;
            switch (o.kind) {
              case 'lower':
                return api.update(keys.partner, tokens[o.member][i % 2]!, o.member, o.member === 'm-hh-1' ? 'rt-hh-1' : 'rt-hh-2', { reservationAmount: o.amount });
              case 'create':
                return api.update(keys.partner, tokens[o.member][i % 2]!, o.member, `rt-mix-${o.token}`, { reservationAmount: o.amount, offline: true });
              case 'items':
                return api.update(keys.partner, tokens['m-hh-1'][i % 2]!, 'm-hh-1', `rt-mix-${o.token}`, {
                  offline: true,
                  redemptionId: 'rd-200',
                  redeemerId: 'm-hh-1',
                  catalogueItems: [{ productCode: '0000000002', quantity: o.quantity }],
                });
              case 'session':
                return api.startSession(keys.partner, o.member);
            }
          }),
        );
        await expectHealthyState(responses);
      }),
      runs(15),
    );
  });
});
