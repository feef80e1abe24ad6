import { fixtureKeyId, hashSecret } from '../../domain/secrets';
import { MemoryStore } from '../../store/memory/memory-store';
import { connectTestStore, testMongoSource } from '../../store/test-support/mongo-test-server';
import type { Store } from '../../store/port';
import type { StoreFactory } from '../../store/test-support/store.contract';
import { fixtureClient, fixtureMember, fixtureReservation } from '../../test-support/fixture-entries';
import { FixtureError } from './fixture-error';
import type { Fixture, FixtureReservation } from './fixture-schema';
import { loadFixture } from './load-fixture';
import { demoFixturePath, readFixtureFile } from './read-fixture';

/*
 * The loader through the store port, on the embedded store and, when
 * MONGODB_URI is set, on MongoDB: what it writes, what it replaces, what it
 * refuses before writing anything. (Loads racing the API:
 * test/integration/load-while-serving.test.ts.)
 */

const fixtureNow = new Date('2030-01-01T00:00:00.000Z');

const mongo = testMongoSource();
const embedded: StoreFactory = async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
};
const variants: Array<[string, StoreFactory]> = [['the embedded store', embedded]];
if (mongo.kind === 'uri') variants.push(['MongoDB', () => connectTestStore(mongo.uri, 'load-fixture')]);
else it.skip(`loadFixture on MongoDB: skipped, ${mongo.reason}`, () => undefined);

describe.each(variants)('loadFixture on %s', (_name, factory) => {
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ store, cleanup } = await factory());
  });

  afterEach(async () => {
    await cleanup();
  });

  const baseFixture = (): Fixture => ({
    clients: [fixtureClient('minimal-app', 'pk_minimal_0001'), fixtureClient('slow-app', 'pk_slow_0002', { reservationDurationSeconds: 60 })],
    members: [
      fixtureMember('m-solo', 500),
      fixtureMember('m-a', 300, { householdId: 'hh-1', privileges: ['REDEEM'], eligibleForRedemption: false }),
      fixtureMember('m-b', 200, { householdId: 'hh-1' }),
    ],
    reservations: [
      fixtureReservation('rt-1', 'm-a', { 'm-a': 70, 'm-b': 30 }, { clientId: 'slow-app' }),
      fixtureReservation('rt-2', 'm-solo', { 'm-solo': 50 }, { clientId: 'elsewhere-app', identifierType: 'EMAIL', expiresAt: '2030-02-01T00:00:00Z', createdAt: '2029-12-31T00:00:00Z' }),
    ],
  });

  it('applies client defaults and stores only the key digest, under an id of its own', async () => {
    // The loader's defaults spelled out, not built: the record builders take the same defaults.
    await loadFixture(store, baseFixture(), fixtureNow);
    expect((await store.findApiKey(hashSecret('pk_minimal_0001')))?.key).toStrictEqual({
      keyId: fixtureKeyId('minimal-app', 0),
      clientId: 'minimal-app',
      kind: 'secret',
      origins: [],
      digest: hashSecret('pk_minimal_0001'),
      createdAt: fixtureNow,
      expiresAt: null,
      revokedAt: null,
    });
    expect(await store.findClient('minimal-app')).toStrictEqual({
      clientId: 'minimal-app',
      enabledBusinessUnits: ['LCL'],
      defaultBusinessUnit: null,
      vouchersEnabled: true,
      sessionTtlSeconds: 3600,
      reservationDurationSeconds: 900,
      extendedDurationSeconds: 3600,
      redemptionTiers: null,
      dailyRedemptionCap: null,
    });
  });

  it("loads a client's several keys, and loading again never brings back a revoked one", async () => {
    const fixture: Fixture = { clients: [fixtureClient('multi-app', 'pk_multi_0001', { apiKeys: ['pk_multi_0002'] })] };
    await loadFixture(store, fixture, fixtureNow);
    expect((await store.listApiKeys('multi-app')).map((k) => k.keyId).sort()).toEqual([fixtureKeyId('multi-app', 0), fixtureKeyId('multi-app', 1)].sort());
    const revokedAt = new Date('2030-01-02T00:00:00.000Z');
    await store.updateApiKey('multi-app', fixtureKeyId('multi-app', 0), { revokedAt });
    await loadFixture(store, fixture, new Date('2030-01-03T00:00:00.000Z'));
    expect((await store.findApiKey(hashSecret('pk_multi_0001')))?.key).toMatchObject({ revokedAt, createdAt: fixtureNow });
    // A key changed in the fixture is a new key at that place.
    await loadFixture(store, { clients: [{ ...fixture.clients![0]!, apiKey: 'pk_multi_0003' }] }, fixtureNow);
    expect((await store.findApiKey(hashSecret('pk_multi_0003')))?.key).toMatchObject({ keyId: fixtureKeyId('multi-app', 0), revokedAt: null });
    expect(await store.findApiKey(hashSecret('pk_multi_0001'))).toBeNull();
  });

  it("loads a client's publishable keys with their origins; loading again keeps a revocation and follows the fixture's origins", async () => {
    const page = 'https://app.example.com';
    const client = fixtureClient('web-app', 'sk_web_0001', { publishableKeys: [{ apiKey: 'pk_web_0001', origins: [page] }] });
    await loadFixture(store, { clients: [client] }, fixtureNow);
    const keyId = fixtureKeyId('web-app', 0, 'publishable');
    expect((await store.findApiKey(hashSecret('pk_web_0001')))?.key).toStrictEqual({
      keyId,
      clientId: 'web-app',
      kind: 'publishable',
      origins: [page],
      digest: hashSecret('pk_web_0001'),
      createdAt: fixtureNow,
      expiresAt: null,
      revokedAt: null,
    });
    // Its own id: not the secret key's at the same place.
    expect(keyId).not.toBe(fixtureKeyId('web-app', 0));
    const revokedAt = new Date('2030-01-02T00:00:00.000Z');
    await store.updateApiKey('web-app', keyId, { revokedAt });
    const moved = { ...client, publishableKeys: [{ apiKey: 'pk_web_0001', origins: [page, 'https://m.example.com'] }] };
    await loadFixture(store, { clients: [moved] }, new Date('2030-01-03T00:00:00.000Z'));
    expect((await store.findApiKey(hashSecret('pk_web_0001')))?.key).toMatchObject({
      origins: [page, 'https://m.example.com'],
      revokedAt,
      createdAt: fixtureNow,
    });
    expect(await store.listLivePublishableKeys(new Date('2030-01-03T00:00:00.000Z'), 10)).toStrictEqual([]);
  });

  it('applies member defaults and derives wallet ids', async () => {
    await loadFixture(store, baseFixture(), fixtureNow);
    expect(await store.findMember('m-solo')).toStrictEqual({
      correlationId: 'm-solo',
      walletId: 'member:m-solo',
      householdId: null,
      eligibleForRedemption: true,
      privileges: [],
    });
    expect(await store.findMember('m-a')).toStrictEqual({
      correlationId: 'm-a',
      walletId: 'household:hh-1',
      householdId: 'hh-1',
      eligibleForRedemption: false,
      privileges: ['REDEEM'],
    });
    expect((await store.findMember('m-b'))?.walletId).toBe('household:hh-1');
  });

  it('puts balances and reservations into wallets, defaulting expiry from the client', async () => {
    await loadFixture(store, baseFixture(), fixtureNow);
    expect(await store.loadWallet('household:hh-1')).toStrictEqual({
      walletId: 'household:hh-1',
      version: 1,
      balances: [
        { correlationId: 'm-a', pointBalance: 300 },
        { correlationId: 'm-b', pointBalance: 200 },
      ],
      reservations: [
        {
          reservationToken: 'rt-1',
          clientId: 'slow-app',
          correlationId: 'm-a',
          identifierType: 'CARD_NUMBER',
          reservationAmount: 100,
          contributions: [
            { correlationId: 'm-a', points: 70 },
            { correlationId: 'm-b', points: 30 },
          ],
          expiresAt: new Date(fixtureNow.getTime() + 60_000),
          createdAt: fixtureNow,
          excludedFromCap: false,
        },
      ],
    });
    const solo = await store.loadWallet('member:m-solo');
    expect(solo?.reservations[0]?.expiresAt).toEqual(new Date('2030-02-01T00:00:00Z'));
    expect(solo?.reservations[0]?.createdAt).toEqual(new Date('2029-12-31T00:00:00Z'));
  });

  it('replaces records with the same key instead of adding them', async () => {
    await loadFixture(store, baseFixture(), fixtureNow);
    const again = baseFixture();
    again.members![0]!.pointBalance = 999;
    again.reservations![0] = { ...again.reservations![0]!, reservationAmount: 10, contributions: [{ correlationId: 'm-b', points: 10 }] };
    again.clients![0]!.vouchersEnabled = false;
    await loadFixture(store, again, fixtureNow);

    const household = await store.loadWallet('household:hh-1');
    expect(household?.reservations).toHaveLength(1);
    expect(household?.reservations[0]?.contributions).toEqual([{ correlationId: 'm-b', points: 10 }]);
    expect(household?.balances).toHaveLength(2);
    expect((await store.loadWallet('member:m-solo'))?.balances).toEqual([{ correlationId: 'm-solo', pointBalance: 999 }]);
    expect((await store.findClient('minimal-app'))?.vouchersEnabled).toBe(false);
  });

  it('keeps a reservation of another client with the same token apart', async () => {
    await loadFixture(store, baseFixture(), fixtureNow);
    const other = baseFixture().reservations![0]!;
    await loadFixture(store, { reservations: [{ ...other, clientId: 'minimal-app' }], clients: baseFixture().clients }, fixtureNow);
    const tokens = (await store.loadWallet('household:hh-1'))?.reservations.map((r) => `${r.clientId}/${r.reservationToken}`);
    expect(tokens?.sort()).toEqual(['minimal-app/rt-1', 'slow-app/rt-1']);
  });

  it('moves a member that changed household: its balance leaves the old wallet', async () => {
    const fixture = baseFixture();
    fixture.reservations = [];
    await loadFixture(store, fixture, fixtureNow);
    await loadFixture(store, { members: [fixtureMember('m-b', 250, { householdId: 'hh-2' })] }, fixtureNow);

    expect((await store.loadWallet('household:hh-1'))?.balances).toEqual([{ correlationId: 'm-a', pointBalance: 300 }]);
    expect((await store.loadWallet('household:hh-2'))?.balances).toEqual([{ correlationId: 'm-b', pointBalance: 250 }]);
    expect((await store.findMember('m-b'))?.walletId).toBe('household:hh-2');
    expect((await store.findMember('m-a'))?.walletId).toBe('household:hh-1');

    await loadFixture(store, { members: [fixtureMember('m-b', 250)] }, fixtureNow);
    expect((await store.loadWallet('household:hh-2'))?.balances).toEqual([]);
    expect((await store.loadWallet('member:m-b'))?.balances).toEqual([{ correlationId: 'm-b', pointBalance: 250 }]);
  });

  it('refuses to move a member that funds an active reservation in its old wallet', async () => {
    await loadFixture(store, baseFixture(), fixtureNow);
    const move = loadFixture(store, { members: [fixtureMember('m-b', 200, { householdId: 'hh-2' })] }, fixtureNow);
    await expect(move).rejects.toThrow(FixtureError);
    await expect(move).rejects.toThrow('/members/0/householdId');
    expect((await store.findMember('m-b'))?.walletId).toBe('household:hh-1');
  });

  it('accepts a reservation of members already in the store', async () => {
    await loadFixture(store, baseFixture(), fixtureNow);
    await loadFixture(
      store,
      {
        reservations: [fixtureReservation('rt-9', 'm-b', { 'm-a': 5 }, { clientId: 'x', identifierType: 'EMAIL', expiresAt: '2030-01-02T00:00:00Z' })],
      },
      fixtureNow,
    );
    expect((await store.loadWallet('household:hh-1'))?.reservations.map((r) => r.reservationToken).sort()).toEqual(['rt-1', 'rt-9']);
  });

  it.each([
    {
      problem: 'an unknown reservation member',
      reservation: { correlationId: 'm-ghost', contributions: [{ correlationId: 'm-solo', points: 5 }] },
      path: '/reservations/0/correlationId',
    },
    {
      problem: 'an unknown contributor',
      reservation: { correlationId: 'm-solo', contributions: [{ correlationId: 'm-ghost', points: 5 }] },
      path: '/reservations/0/contributions/0/correlationId',
    },
    {
      problem: 'a contributor from another wallet',
      reservation: { correlationId: 'm-a', contributions: [{ correlationId: 'm-solo', points: 5 }] },
      path: '/reservations/0/contributions/0/correlationId',
    },
  ])('refuses $problem with its path, before writing anything', async ({ reservation: r, path }) => {
    const fixture: Fixture = {
      clients: [fixtureClient('minimal-app', 'pk_minimal_0001')],
      members: baseFixture().members,
      reservations: [fixtureReservation('rt-x', r.correlationId, r.contributions, { clientId: 'minimal-app', identifierType: 'EMAIL' })],
    };
    const load = loadFixture(store, fixture, fixtureNow);
    await expect(load).rejects.toThrow(FixtureError);
    await expect(load).rejects.toThrow(path);
    expect(await store.findClient('minimal-app')).toBeNull();
    expect(await store.findApiKey(hashSecret('pk_minimal_0001'))).toBeNull();
    expect(await store.findMember('m-solo')).toBeNull();
  });

  describe('the limit of live reservations per wallet', () => {
    const limits = { maxActiveReservationsPerWallet: 3 };
    const members = [fixtureMember('m-solo', 10_000)];
    const clients = [fixtureClient('minimal-app', 'pk_minimal_0001')];
    const live = (token: string, extra: Partial<FixtureReservation> = {}): FixtureReservation =>
      fixtureReservation(token, 'm-solo', { 'm-solo': 1 }, { clientId: 'minimal-app', identifierType: 'EMAIL', ...extra });
    const expired = { expiresAt: new Date(fixtureNow.getTime() - 1000).toISOString() };

    it('takes a wallet filled to the limit; expired reservations do not count', async () => {
      await loadFixture(store, { clients, members, reservations: [live('rt-1'), live('rt-2'), live('rt-old', expired), live('rt-3')] }, fixtureNow, limits);
      expect((await store.loadWallet('member:m-solo'))?.reservations).toHaveLength(4);
    });

    it('refuses one past the limit, naming the first reservation past it, before writing anything', async () => {
      const fixture = { clients, members, reservations: [live('rt-1'), live('rt-old', expired), live('rt-2'), live('rt-3'), live('rt-4')] };
      const load = loadFixture(store, fixture, fixtureNow, limits);
      await expect(load).rejects.toThrow(FixtureError);
      await expect(load).rejects.toThrow('/reservations/4: wallet member:m-solo would hold 4 live reservations; MAX_ACTIVE_RESERVATIONS_PER_WALLET allows 3');
      expect(await store.findMember('m-solo')).toBeNull();
      expect(await store.loadWallet('member:m-solo')).toBeNull();
    });

    it('counts what the wallet already holds, except the records the fixture replaces', async () => {
      await loadFixture(store, { clients, members, reservations: [live('rt-1'), live('rt-2')] }, fixtureNow, limits);
      // rt-2 replaced, rt-3 new: 3 live.
      await loadFixture(store, { clients, reservations: [live('rt-2'), live('rt-3')] }, fixtureNow, limits);
      const more = loadFixture(store, { clients, reservations: [live('rt-4')] }, fixtureNow, limits);
      await expect(more).rejects.toThrow('/reservations/0: wallet member:m-solo would hold 4 live reservations');
    });

    it('loads thousands of reservations into one wallet in one pass (linear in the fixture)', async () => {
      const count = 5000;
      const reservations = Array.from({ length: count }, (_, i) => live(`rt-${i}`));
      await loadFixture(store, { clients, members: [fixtureMember('m-solo', count)], reservations }, fixtureNow, {
        maxActiveReservationsPerWallet: count,
      });
      const stored = await store.loadWallet('member:m-solo');
      expect(stored?.reservations).toHaveLength(count);
      expect(stored?.version).toBe(1);
    }, 60_000);
  });

  it('loads the demo fixture', async () => {
    await loadFixture(store, await readFixtureFile(demoFixturePath), fixtureNow);
    const ids = async (unit: string) => (await store.listPublishedVoucherDefinitions(unit, 'CUX')).map((d) => d.voucherDefinitionId);
    expect(await ids('LCL')).toEqual(['vd-0001', 'vd-0003', 'vd-0004']);
    expect(await ids('SDM')).toEqual(['vd-0007']);
    expect((await store.findApiKey(hashSecret('demo_secret_partner_app_0001')))?.client?.clientId).toBe('partner-app');
    for (const id of ['m-hh2-a', 'm-hh2-b', 'm-hh2-c']) expect((await store.findMember(id))?.walletId).toBe('household:hh-2');
  });
});
