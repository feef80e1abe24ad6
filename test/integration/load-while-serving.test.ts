import { wrapStore } from '../../server/src/store/store-wrapper';
import { FixtureError } from '../../server/src/features/load/fixture-error';
import { loadFixture } from '../../server/src/features/load/load-fixture';
import type { Fixture } from '../../server/src/features/load/fixture-schema';
import { defaultMoveLeaseMs } from '../../server/src/features/load/member-move-steps';
import { MemoryStore } from '../../server/src/store/memory/memory-store';
import { connectTestStore, testMongoSource } from '../../server/src/store/test-support/mongo-test-server';
import type { Store, StoreMethod } from '../../server/src/store/port';
import { fixtureClient, fixtureMember } from '../../server/src/test-support/fixture-entries';
import type { StoreFactory } from '../../server/src/store/test-support/store.contract';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';

/*
 * An operator's load (`loyalty-admin load`, `loadFixture`) moving a member
 * to another household while the API serves it and its household. The race
 * is made certain by a hook on the load's store, between its plan and its
 * writes, or between its writes: the API is called there, as a partner's
 * offline reservation would arrive. Whatever happens, no reservation is
 * left where the API cannot reach it, no request meets a 500, and a load
 * that dies leaves nothing blocked for ever. On the embedded store, and on
 * MongoDB when MONGODB_URI is set.
 */

jest.setTimeout(60_000);

const key = 'pk_load_race_000001';
const base: Fixture = {
  clients: [fixtureClient('partner-app', key, { defaultBusinessUnit: 'LCL', reservationDurationSeconds: 900 })],
  members: [
    fixtureMember('m-a', 1000, { householdId: 'hh-1', privileges: ['REDEEM'] }),
    fixtureMember('m-b', 500, { householdId: 'hh-1', privileges: ['REDEEM'] }),
    fixtureMember('m-c', 300, { householdId: 'hh-2', privileges: ['REDEEM'] }),
  ],
};
/** m-b joins hh-2; a new client comes with it, to see whether the load wrote anything. */
const moveB: Fixture = {
  clients: [fixtureClient('later-app', 'pk_load_race_000002')],
  members: [fixtureMember('m-b', 500, { householdId: 'hh-2', privileges: ['REDEEM'] })],
};

const mongo = testMongoSource();
const variants: Array<[string, StoreFactory]> = [['the embedded store', async () => ({ store: new MemoryStore(), cleanup: async () => undefined })]];
if (mongo.kind === 'uri') variants.push(['MongoDB', () => connectTestStore(mongo.uri, 'load-race')]);
else it.skip(`a load while serving, on MongoDB: skipped, ${mongo.reason}`, () => undefined);

describe.each(variants)('a load moving a member while %s serves it', (_name, factory) => {
  let app: TestApp;
  let store: Store;
  let cleanup: () => Promise<void>;
  const sessions: Record<string, string> = {};

  beforeEach(async () => {
    ({ store, cleanup } = await factory());
    // The app's clock moves only when a test moves it: the fences are dated by it, and so is the load's report of them.
    app = await startTestApp({ store, fixture: base, startAt: Date.now() });
    for (const member of ['m-a', 'm-b', 'm-c']) sessions[member] = await app.api.startSession(key, member);
  });
  afterEach(async () => {
    await app.close();
    await cleanup();
  });

  /** An offline reservation (or a change of one) by `member`, as a partner sends it. */
  const reserve = (member: string, token: string, amount: number) =>
    app.api.updateReservation(key, sessions[member]!, member, token, { reservationAmount: amount, offline: true });

  /**
   * The load on the store, with `hook` run before the `nth` call of `method`
   * (1 by default); `throws`: that call fails instead, as a load that dies
   * there. It dates its fences by the app's clock, so that a test moves past
   * their lease (one minute) with `app.advance`, whatever the machine's pace.
   */
  function load(fixture: Fixture, at: { method: StoreMethod; nth?: number; hook?: () => Promise<void>; throws?: boolean }) {
    let seen = 0;
    const hooked = wrapStore(store, async (method, _args, call) => {
      if (method === at.method && ++seen === (at.nth ?? 1)) {
        await at.hook?.();
        if (at.throws) throw new Error(`the load died before ${method}`);
      }
      return call();
    });
    return loadFixture(hooked, fixture, app.now(), undefined, { clock: app.now });
  }

  const walletOf = async (member: string) => (await store.findMember(member))?.walletId;
  const wallet = (id: string) => store.loadWallet(id);
  const balancesOf = async (id: string) => (await wallet(id))?.balances.map((b) => `${b.correlationId}:${b.pointBalance}`).sort();

  it.each([
    ['the member itself', 'm-b', 100],
    ['its household, drawing on its points', 'm-a', 1200],
  ])('a reservation made by %s before the load: the load refuses up front, naming the member, having changed nothing', async (_who, member, amount) => {
    expect((await reserve(member, 'rt-race', amount)).status).toBe(200);
    const move = load(moveB, { method: 'ping' });
    await expect(move).rejects.toThrow(FixtureError);
    await expect(move).rejects.toThrow(/\/members\/0\/householdId: member "m-b" leaves wallet household:hh-1, which holds its active reservations \(rt-race\)/);

    expect(await walletOf('m-b')).toBe('household:hh-1');
    expect(await store.findClient('later-app')).toBeNull();
    expect(await balancesOf('household:hh-2')).toEqual(['m-c:300']);
    expect(await wallet('household:hh-1')).not.toHaveProperty('moves');
    // Reachable, and lowerable, where it was made.
    expect((await reserve(member, 'rt-race', 0)).status).toBe(200);
  });

  it.each([
    ['the member itself', 'm-b', 100],
    ['its household, drawing on its points', 'm-a', 1200],
  ])('a reservation made by %s after the check, before the member\'s turn: the load stops there, naming it; what came before is written, the member stays; loading again once it is released moves it', async (_who, member, amount) => {
    // m-b's fence is the load's first wallet save: the records are written by then.
    const move = load(moveB, { method: 'saveWallet', hook: async () => expect((await reserve(member, 'rt-race', amount)).status).toBe(200) });
    await expect(move).rejects.toThrow(/\/members\/0\/householdId: member "m-b" leaves wallet household:hh-1, which holds its active reservations \(rt-race; made after the load checked it, before its turn/);

    expect(await store.findClient('later-app')).not.toBeNull();
    expect(await walletOf('m-b')).toBe('household:hh-1');
    expect(await balancesOf('household:hh-2')).toEqual(['m-c:300']);
    expect(await wallet('household:hh-1')).not.toHaveProperty('moves');
    expect((await reserve(member, 'rt-race', 0)).status).toBe(200);
    // A member's own reservation, even released, is its own until it expires (15 minutes); then it moves.
    app.advance(901);
    expect(await load(moveB, { method: 'ping' })).toEqual({ membersMoved: 1, longestFenceMs: 0 });
    expect(await walletOf('m-b')).toBe('household:hh-2');
  });

  it('during its move, after its fence: the moving member is answered 503 (retry), its household does not draw on it; after the move, everything is reachable', async () => {
    const during: Array<{ status: number; retryAfter: string | null; message?: string }> = [];
    // The second wallet save: m-b's balance carried to hh-2, after its fence in hh-1.
    const report = await load(moveB, {
      method: 'saveWallet',
      nth: 2,
      hook: async () => {
        for (const [member, token, amount] of [
          ['m-b', 'rt-b', 100],
          ['m-a', 'rt-a-big', 1200],
          ['m-a', 'rt-a', 900],
        ] as const) {
          const res = await reserve(member, token, amount);
          during.push({ status: res.status, retryAfter: res.headers.get('retry-after'), ...(res.status !== 200 && { message: res.body?.errorMessage }) });
        }
      },
    });
    expect(during).toEqual([
      { status: 503, retryAfter: '1', message: 'Service unavailable' },
      { status: 400, retryAfter: null, message: 'Insufficient points balance' },
      { status: 200, retryAfter: null },
    ]);
    // The app's clock did not move during the load: the fence held for no time of the load's clock.
    expect(report).toEqual({ membersMoved: 1, longestFenceMs: 0 });

    expect(await walletOf('m-b')).toBe('household:hh-2');
    expect(await balancesOf('household:hh-1')).toEqual(['m-a:1000']);
    expect(await balancesOf('household:hh-2')).toEqual(['m-b:500', 'm-c:300']);
    for (const id of ['household:hh-1', 'household:hh-2']) expect(await wallet(id)).not.toHaveProperty('moves');
    // The partner's retry of the refused one now reserves once, in the new household; m-c may draw on m-b there.
    const retried = await reserve('m-b', 'rt-b', 100);
    expect(retried.status).toBe(200);
    expect(retried.body.household).toEqual({ pointsBalance: 800, availablePointsBalance: 700 });
    expect((await reserve('m-c', 'rt-c', 600)).status).toBe(200);
    expect((await reserve('m-a', 'rt-a', 0)).status).toBe(200);
  });

  it('a moving member is fenced for its own move, not for the rest of the load: not while the other wallets are written, and its fence held only its move (the load\'s longest fence)', async () => {
    const others = Array.from({ length: 20 }, (_, i) => fixtureMember(`m-solo-${i}`, 10));
    const fencedMeanwhile: boolean[] = [];
    // Every other wallet save of the load (20 one-member wallets, written before any move) takes 5 s of the load's clock.
    let saves = 0;
    const hooked = wrapStore(store, async (method, _args, call) => {
      if (method === 'saveWallet' && ++saves <= others.length) {
        app.advance(5);
        fencedMeanwhile.push((await wallet('household:hh-1'))?.moves !== undefined);
      }
      return call();
    });
    const report = await loadFixture(hooked, { ...moveB, members: [...others, ...moveB.members!] }, app.now(), undefined, { clock: app.now });
    // The load took 100 s of its clock; m-b was never fenced through it, then for none of it: its own move took no time of that clock.
    expect(fencedMeanwhile).toEqual(Array(others.length).fill(false));
    expect(report).toEqual({ membersMoved: 1, longestFenceMs: 0 });
    expect(await walletOf('m-b')).toBe('household:hh-2');
  });

  it('the load dies after the move is decided, before the member record moves: the member is served in its new wallet, and loading again finishes it', async () => {
    await expect(load(moveB, { method: 'upsertMembers', throws: true })).rejects.toThrow('the load died before upsertMembers');
    expect(await walletOf('m-b')).toBe('household:hh-1');

    // Its wallet's record of the move leads its requests to hh-2, where its balance arrived.
    const made = await reserve('m-b', 'rt-b', 100);
    expect(made.status).toBe(200);
    expect(made.body.availablePointBalance).toBe(400);
    // Its balance there is not the others' to draw on until the move is finished.
    expect((await reserve('m-c', 'rt-c', 600)).body.errorMessage).toBe('Insufficient points balance');

    await load(moveB, { method: 'ping' });
    expect(await walletOf('m-b')).toBe('household:hh-2');
    for (const id of ['household:hh-1', 'household:hh-2']) expect(await wallet(id)).not.toHaveProperty('moves');
    expect((await reserve('m-c', 'rt-c', 600)).status).toBe(200);
    expect((await reserve('m-b', 'rt-b', 0)).status).toBe(200);
  });

  it('the load dies after the member record moved, before the move is finished: the member is served, and loading again finishes it', async () => {
    // Its saves: the fence (hh-1), the balances (hh-2), the commit (hh-1), then the finish (hh-2, hh-1).
    await expect(load(moveB, { method: 'saveWallet', nth: 4, throws: true })).rejects.toThrow('the load died before saveWallet');
    expect(await walletOf('m-b')).toBe('household:hh-2');
    expect((await wallet('household:hh-2'))?.moves).toEqual([{ correlationId: 'm-b', state: 'arriving', walletId: 'household:hh-1' }]);

    expect((await reserve('m-b', 'rt-b', 100)).status).toBe(200);
    expect((await reserve('m-c', 'rt-c', 600)).body.errorMessage).toBe('Insufficient points balance');
    await load(moveB, { method: 'ping' });
    for (const id of ['household:hh-1', 'household:hh-2']) expect(await wallet(id)).not.toHaveProperty('moves');
    expect((await reserve('m-c', 'rt-c', 600)).status).toBe(200);
    expect((await reserve('m-b', 'rt-b', 0)).status).toBe(200);
  });

  it('the load dies after fencing the member: its fence lapses with the lease, and the member reserves in its wallet again', async () => {
    await expect(load(moveB, { method: 'saveWallet', nth: 2, throws: true })).rejects.toThrow('the load died');
    expect((await reserve('m-b', 'rt-b', 100)).status).toBe(503);
    app.advance(defaultMoveLeaseMs / 1000 + 1);
    expect((await reserve('m-b', 'rt-b', 100)).status).toBe(200);
    expect(await walletOf('m-b')).toBe('household:hh-1');
    expect((await reserve('m-b', 'rt-b', 0)).status).toBe(200);
  });

  it('a move stalled past its lease while a reservation is made: that member stays, its reservation reachable; what came before it is written', async () => {
    const move = load(moveB, {
      method: 'saveWallet',
      nth: 2,
      hook: async () => {
        app.advance(defaultMoveLeaseMs / 1000 + 1);
        expect((await reserve('m-b', 'rt-late', 100)).status).toBe(200);
      },
    });
    await expect(move).rejects.toThrow(/member "m-b" leaves wallet household:hh-1, which holds its active reservations \(rt-late; made while its move ran, after its fence lapsed/);

    expect(await walletOf('m-b')).toBe('household:hh-1');
    expect(await store.findClient('later-app')).not.toBeNull();
    expect(await balancesOf('household:hh-1')).toEqual(['m-a:1000', 'm-b:500']);
    expect(await balancesOf('household:hh-2')).toEqual(['m-c:300']);
    for (const id of ['household:hh-1', 'household:hh-2']) expect(await wallet(id)).not.toHaveProperty('moves');
    expect((await reserve('m-b', 'rt-late', 0)).status).toBe(200);
  });
});
