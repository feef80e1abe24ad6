/**
 * The behaviour every `Store` adapter promises, as one jest suite. Each
 * adapter's test file calls `describeStoreContract` with a factory that gives
 * a fresh, empty store per test.
 */
import type { ApiKeyRecord, AuditEntry, ClientRecord, MemberMove, ReservationRecord, Wallet } from '../../domain/model';
import { fixtureKeyId, hashSecret } from '../../domain/secrets';
import { totalsOf, withChange } from '../../domain/wallet-totals';
import { deepCopy } from '../copy';
import { demoFixturePath, FixtureError, loadFixture, readFixtureFile, type Fixture, type FixtureReservation } from '../fixture';
import type { Store } from '../port';
import {
  apiKeyRecord,
  auditEntry,
  catalogueItemRecord,
  clientRecord,
  definitionRecord,
  fixtureClient,
  fixtureMember,
  fixtureReservation,
  memberRecord,
  redemptionRecord,
  reservationRecord,
  sessionRecord,
  wallet,
} from './records';

/**
 * A fresh store, and `settle`: waits for what its saves left to do after
 * their answer (the MongoDB store's outbox); absent, nothing is left.
 */
export type StoreFactory = () => Promise<{ store: Store; cleanup: () => Promise<void>; settle?: () => Promise<void> }>;

// ---------------------------------------------------------------------------
// Records

/** Client settings away from the defaults, so that a store that drops one is caught (the builders copy them). */
const settings: Partial<ClientRecord> = { enabledBusinessUnits: ['LCL', 'SDM'], redemptionTiers: [1000, 2500], dailyRedemptionCap: 6000 };

/**
 * A wallet's reservations come in no particular order (the memory store keeps
 * them as saved, MongoDB by key): compare wallets with their reservations sorted.
 */
function sorted<W extends Wallet | null | undefined>(w: W): W {
  if (!w) return w;
  const key = (r: ReservationRecord) => JSON.stringify([r.clientId, r.correlationId, r.reservationToken]);
  return { ...w, reservations: [...w.reservations].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)) };
}

/**
 * Entries reach the trail only with the changes that carry them: one save
 * per entry, each of a wallet of its own, then what the saves left for
 * after their answer (the outbox).
 */
async function saveChangesCarrying(store: Store, settle: () => Promise<void>, entries: AuditEntry[]): Promise<void> {
  for (const [i, entry] of entries.entries()) {
    expect(await store.saveWallet({ ...wallet(`member:m-audited-${i}`, { [`m-audited-${i}`]: 1 }), audit: entry }, 0)).toBe(true);
  }
  await settle();
}

/** A value a careless caller might pass on from a request body. */
/**
 * Tries changes to records a store handed out. A store may hand out copies
 * (the change stays in the copy) or frozen records (the change throws a
 * TypeError); either way the store must not change, which the caller checks.
 */
function tryToChange(...attempts: Array<() => unknown>): void {
  for (const attempt of attempts) {
    try {
      attempt();
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError);
    }
  }
}

const operatorObject = { $ne: '' } as unknown as string;

const fixtureNow = new Date('2030-01-01T00:00:00.000Z');

// ---------------------------------------------------------------------------

export function describeStoreContract(name: string, factory: StoreFactory): void {
  describe(`${name} honours the Store contract`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let settle: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup, settle = async () => undefined } = await factory());
    });

    afterEach(async () => {
      await cleanup();
    });

    describe('clients and their API keys', () => {
      it('finds a client by id, equal to what was stored, or null', async () => {
        const client = clientRecord('partner-app', settings);
        await store.upsertClients([client, clientRecord('other-app', settings)]);
        expect(await store.findClient('partner-app')).toStrictEqual(client);
        expect(await store.findClient('unknown-app')).toBeNull();
      });

      it('keeps its own records: changing the input or a result does not change the store', async () => {
        const client = clientRecord('partner-app', settings);
        const original = deepCopy(client);
        await store.upsertClients([client]);
        client.enabledBusinessUnits.push('GAS');
        const found = await store.findClient('partner-app');
        tryToChange(() => found?.enabledBusinessUnits.push('XYZ'), () => found && (found.clientId = 'other'));
        expect(await store.findClient('partner-app')).toStrictEqual(original);
      });

      it('finds a key by its digest, with its client; an unknown digest finds nothing', async () => {
        const client = clientRecord('partner-app', settings);
        const key = apiKeyRecord('key_partner1', 'partner-app');
        await store.upsertClients([client]);
        await store.insertApiKey(key);
        expect(await store.findApiKey(key.digest)).toStrictEqual({ key, client });
        expect(await store.findApiKey(hashSecret('unknown'))).toBeNull();
      });

      it('finds a key by its public id, with its client; an unknown id finds nothing', async () => {
        const client = clientRecord('partner-app', settings);
        const key = apiKeyRecord('key_partner1', 'partner-app');
        await store.upsertClients([client]);
        await store.insertApiKey(key);
        expect(await store.findApiKeyById('key_partner1')).toStrictEqual({ key, client });
        expect(await store.findApiKeyById('key_unknown')).toBeNull();
      });

      it('finds a key whose client is gone, with a null client', async () => {
        const key = apiKeyRecord('key_orphan1', 'gone-app');
        await store.insertApiKey(key);
        expect(await store.findApiKey(key.digest)).toStrictEqual({ key, client: null });
      });

      it("lists a client's keys oldest first, and no other client's", async () => {
        const older = apiKeyRecord('key_b', 'partner-app', { createdAt: new Date('2030-01-01T00:00:00.000Z') });
        const newer = apiKeyRecord('key_a', 'partner-app', { createdAt: new Date('2030-01-02T00:00:00.000Z') });
        await store.insertApiKey(newer);
        await store.insertApiKey(older);
        await store.insertApiKey(apiKeyRecord('key_other', 'other-app'));
        expect(await store.listApiKeys('partner-app')).toStrictEqual([older, newer]);
        expect(await store.listApiKeys('nobody')).toStrictEqual([]);
      });

      it.each([
        ['keyId', (k: ApiKeyRecord) => apiKeyRecord(k.keyId, 'partner-app')],
        ['digest', (k: ApiKeyRecord) => apiKeyRecord('key_second', 'partner-app', { digest: k.digest })],
      ])('refuses a new key whose %s is taken', async (_what, clash) => {
        const key = apiKeyRecord('key_first', 'partner-app');
        await store.insertApiKey(key);
        await expect(store.insertApiKey(clash(key))).rejects.toThrow();
        expect(await store.listApiKeys('partner-app')).toStrictEqual([key]);
      });

      it("sets a key's expiry and revocation, only through its own client", async () => {
        const key = apiKeyRecord('key_partner1', 'partner-app');
        await store.insertApiKey(key);
        const expiresAt = new Date('2030-03-01T00:00:00.000Z');
        expect(await store.updateApiKey('other-app', key.keyId, { expiresAt })).toBeNull();
        expect(await store.updateApiKey('partner-app', 'key_unknown', { expiresAt })).toBeNull();
        const expiring = await store.updateApiKey('partner-app', key.keyId, { expiresAt });
        expect(expiring).toStrictEqual({ ...key, expiresAt });
        const revokedAt = new Date('2030-02-01T00:00:00.000Z');
        expect(await store.updateApiKey('partner-app', key.keyId, { revokedAt })).toStrictEqual({ ...key, expiresAt, revokedAt });
        expect((await store.findApiKey(key.digest))?.key).toStrictEqual({ ...key, expiresAt, revokedAt });
      });

      it('lists the live publishable keys, oldest first, up to the limit: no secret, revoked or expired key', async () => {
        const at = (day: number) => new Date(`2030-01-0${day}T00:00:00.000Z`);
        const now = at(5);
        const publishable = (keyId: string, day: number, overrides: Partial<ApiKeyRecord> = {}) =>
          apiKeyRecord(keyId, 'partner-app', { kind: 'publishable', origins: [`https://${keyId}.example.com`], createdAt: at(day), ...overrides });
        const oldest = publishable('key_p1', 1);
        const expiringLater = publishable('key_p3', 3, { expiresAt: at(6), origins: ['https://a.example.com', 'http://127.0.0.1:5173'] });
        const newest = publishable('key_p4', 4, { clientId: 'other-app' });
        for (const key of [
          newest,
          apiKeyRecord('key_s1', 'partner-app', { createdAt: at(1) }),
          publishable('key_p2', 2, { revokedAt: at(4) }),
          publishable('key_p5', 2, { expiresAt: now }),
          expiringLater,
          oldest,
        ]) {
          await store.insertApiKey(key);
        }
        expect(await store.listLivePublishableKeys(now, 10)).toStrictEqual([oldest, expiringLater, newest]);
        expect(await store.listLivePublishableKeys(now, 2)).toStrictEqual([oldest, expiringLater]);
        expect(await store.listLivePublishableKeys(at(7), 10)).toStrictEqual([oldest, newest]);
      });

      it('replaces a key with the same keyId on upsert; its old digest no longer finds it', async () => {
        const key = apiKeyRecord('key_fx1', 'partner-app');
        await store.upsertApiKeys([key]);
        const replaced = apiKeyRecord('key_fx1', 'partner-app', { digest: hashSecret('rotated') });
        await store.upsertApiKeys([replaced]);
        expect(await store.findApiKey(key.digest)).toBeNull();
        expect((await store.findApiKey(replaced.digest))?.key).toStrictEqual(replaced);
      });

      it('refuses on upsert a digest that already belongs to another key', async () => {
        await store.upsertApiKeys([apiKeyRecord('key_a', 'a-app', { digest: hashSecret('shared') })]);
        await expect(store.upsertApiKeys([apiKeyRecord('key_b', 'b-app', { digest: hashSecret('shared') })])).rejects.toThrow();
      });
    });

    describe('members', () => {
      it('finds a member, or null', async () => {
        const member = memberRecord('m-alice');
        await store.upsertMembers([member]);
        expect(await store.findMember('m-alice')).toStrictEqual(member);
        expect(await store.findMember('m-nobody')).toBeNull();
      });

      it('replaces a member with the same correlationId, household and wallet included', async () => {
        await store.upsertMembers([memberRecord('m-a', { householdId: 'hh-1' }), memberRecord('m-b', { householdId: 'hh-1' })]);
        await store.upsertMembers([memberRecord('m-a', { householdId: 'hh-2' })]);
        expect(await store.findMember('m-a')).toStrictEqual(memberRecord('m-a', { householdId: 'hh-2' }));
        expect(await store.findMember('m-b')).toStrictEqual(memberRecord('m-b', { householdId: 'hh-1' }));
      });

      it('keeps its own records: changing the input or a result does not change the store', async () => {
        await store.upsertMembers([memberRecord('m-alice')]);
        const found = await store.findMember('m-alice');
        tryToChange(() => found?.privileges.push('ADMIN'));
        expect(await store.findMember('m-alice')).toStrictEqual(memberRecord('m-alice'));
      });
    });

    describe('sessions', () => {
      it('finds a session by token hash with its expiry as a Date', async () => {
        const session = sessionRecord('hash-1');
        await store.insertSession(session);
        const found = await store.findSession('hash-1');
        expect(found).toStrictEqual(session);
        expect(found?.expiresAt).toBeInstanceOf(Date);
        expect(await store.findSession('hash-2')).toBeNull();
      });

      it('keeps its own records: changing the input or a result does not change the store', async () => {
        const session = sessionRecord('hash-1');
        const expected = deepCopy(session);
        await store.insertSession(session);
        session.correlationId = 'm-mallory';
        const found = await store.findSession('hash-1');
        tryToChange(() => found && (found.clientId = 'other'));
        expect(await store.findSession('hash-1')).toStrictEqual(expected);
      });

      it('refuses a second session with the same token hash', async () => {
        await store.insertSession(sessionRecord('hash-1'));
        await expect(store.insertSession(sessionRecord('hash-1'))).rejects.toThrow();
      });

      it('finds a session with its client, member and the key that started it, in one call', async () => {
        const session = sessionRecord('hash-1');
        const client = clientRecord('partner-app', settings);
        const member = memberRecord('m-alice');
        const key = apiKeyRecord('key_partner1', 'partner-app');
        await store.insertSession(session);
        expect(await store.findSessionContext('hash-1')).toStrictEqual({ session, client: null, member: null, key: null });
        await store.upsertClients([client]);
        await store.upsertMembers([member]);
        await store.insertApiKey(key);
        expect(await store.findSessionContext('hash-1')).toStrictEqual({ session, client, member, key });
        expect(await store.findSessionContext('hash-2')).toBeNull();
      });
    });

    describe('voucher definitions', () => {
      // Stored out of order on purpose; ids compare as strings ("vd-1" < "vd-10").
      const definitions = [
        definitionRecord('vd-10', { usageChannels: [] }),
        definitionRecord('vd-03', { usageChannels: ['CUX', 'POS'] }),
        definitionRecord('vd-07', { businessUnit: 'SDM', usageChannels: ['POS'] }),
        definitionRecord('vd-01'),
        definitionRecord('vd-04', { status: 'DRAFT', usageChannels: ['CUX'] }),
        definitionRecord('vd-02', { usageChannels: ['POS'] }),
        definitionRecord('vd-05', { status: 'ARCHIVED' }),
        definitionRecord('vd-06', { businessUnit: 'SDM', usageChannels: ['CUX'] }),
        definitionRecord('vd-08', { usageChannels: ['cux'] }),
        definitionRecord('vd-1', { usageChannels: ['CUX'] }),
      ];

      beforeEach(async () => {
        await store.upsertVoucherDefinitions(definitions);
      });

      it.each([
        { businessUnit: 'LCL', channel: 'CUX', ids: ['vd-01', 'vd-03', 'vd-1', 'vd-10'] },
        { businessUnit: 'LCL', channel: 'POS', ids: ['vd-01', 'vd-02', 'vd-03', 'vd-10'] },
        { businessUnit: 'LCL', channel: 'WEB', ids: ['vd-01', 'vd-10'] },
        { businessUnit: 'LCL', channel: 'cux', ids: ['vd-01', 'vd-08', 'vd-10'] },
        { businessUnit: 'SDM', channel: 'CUX', ids: ['vd-06'] },
        { businessUnit: 'lcl', channel: 'CUX', ids: [] },
        { businessUnit: 'GAS', channel: 'CUX', ids: [] },
      ])('lists PUBLISHED definitions of $businessUnit usable on $channel, sorted by id', async ({ businessUnit, channel, ids }) => {
        const listed = await store.listPublishedVoucherDefinitions(businessUnit, channel);
        expect(listed.map((d) => d.voucherDefinitionId)).toEqual(ids);
      });

      it('returns each definition exactly as stored: every field, nothing added', async () => {
        const listed = await store.listPublishedVoucherDefinitions('LCL', 'CUX');
        const byId = new Map(definitions.map((d) => [d.voucherDefinitionId, d]));
        for (const definition of listed) expect(definition).toStrictEqual(byId.get(definition.voucherDefinitionId));
      });

      it('keeps its own records: changing a listed definition does not change the store', async () => {
        const [first] = await store.listPublishedVoucherDefinitions('LCL', 'CUX');
        if (!first) throw new Error('expected a definition');
        tryToChange(
          () => (first.status = 'ARCHIVED'),
          () => (first.rewardMetadata.amount = 1000),
          () => delete first.usageChannels,
        );
        const [again] = await store.listPublishedVoucherDefinitions('LCL', 'CUX');
        expect(again).toStrictEqual(definitions.find((d) => d.voucherDefinitionId === 'vd-01'));
      });

      it('replaces a definition with the same id, across statuses and business units', async () => {
        await store.upsertVoucherDefinitions([
          definitionRecord('vd-01', { status: 'ARCHIVED' }),
          definitionRecord('vd-03', { businessUnit: 'SDM', usageChannels: ['CUX'] }),
          definitionRecord('vd-04', { usageChannels: ['CUX'] }),
        ]);
        const ids = async (unit: string) => (await store.listPublishedVoucherDefinitions(unit, 'CUX')).map((d) => d.voucherDefinitionId);
        expect(await ids('LCL')).toEqual(['vd-04', 'vd-1', 'vd-10']);
        expect(await ids('SDM')).toEqual(['vd-03', 'vd-06']);
      });
    });

    describe('catalogue items and redemptions', () => {
      beforeEach(async () => {
        await store.upsertCatalogueItems([catalogueItemRecord('0001'), catalogueItemRecord('0002', { pointsAmount: 1500 }), catalogueItemRecord('0003')]);
      });

      it.each([
        { codes: ['0001'], found: ['0001'] },
        { codes: ['0002', '9999', '0001'], found: ['0001', '0002'] },
        { codes: ['0001', '0001'], found: ['0001'] },
        { codes: ['9999'], found: [] },
        { codes: [], found: [] },
      ])('finds the items of $codes, leaving unknown codes out', async ({ codes, found }) => {
        const items = await store.findCatalogueItems(codes);
        expect(items.map((i) => i.productCode).sort()).toEqual(found);
        for (const item of items) expect(item).toStrictEqual(catalogueItemRecord(item.productCode, { pointsAmount: item.productCode === '0002' ? 1500 : 2000 }));
      });

      it('replaces an item with the same product code', async () => {
        await store.upsertCatalogueItems([{ ...catalogueItemRecord('0001'), pointsAmount: 99 }]);
        expect((await store.findCatalogueItems(['0001']))[0]?.pointsAmount).toBe(99);
      });

      it('finds a redemption, or null; the same id replaces', async () => {
        await store.upsertRedemptions([redemptionRecord('rd-1', 'm-alice', { redemptionName: 'Coffee' })]);
        await store.upsertRedemptions([redemptionRecord('rd-1', 'm-bob', { redemptionName: 'Tea' })]);
        expect(await store.findRedemption('rd-1')).toStrictEqual(redemptionRecord('rd-1', 'm-bob', { redemptionName: 'Tea' }));
        expect(await store.findRedemption('rd-2')).toBeNull();
      });
    });

    describe('filter values are keys, never query operators', () => {
      beforeEach(async () => {
        await store.upsertClients([clientRecord('partner-app', settings)]);
        await store.upsertMembers([memberRecord('m-a', { householdId: 'hh-1' })]);
        await store.insertSession(sessionRecord('hash-1'));
        await store.upsertVoucherDefinitions([definitionRecord('vd-1')]);
        await store.upsertCatalogueItems([catalogueItemRecord('0001')]);
        await store.upsertRedemptions([redemptionRecord('rd-1', 'm-a')]);
        await store.saveWallet(wallet('member:m-a', { 'm-a': 1 }), 0);
        await saveChangesCarrying(store, settle, [auditEntry('rt-1', '2030-01-01T00:00:00.000Z', 5)]);
      });

      it.each([
        ['findApiKey', (s: Store) => s.findApiKey(operatorObject), null],
        ['findApiKeyById', (s: Store) => s.findApiKeyById(operatorObject), null],
        ['findClient', (s: Store) => s.findClient(operatorObject), null],
        ['listApiKeys', (s: Store) => s.listApiKeys(operatorObject), []],
        ['findMember', (s: Store) => s.findMember(operatorObject), null],
        ['findSession', (s: Store) => s.findSession(operatorObject), null],
        ['listPublishedVoucherDefinitions', (s: Store) => s.listPublishedVoucherDefinitions(operatorObject, 'CUX'), []],
        ['findCatalogueItems', (s: Store) => s.findCatalogueItems([operatorObject]), []],
        ['findRedemption', (s: Store) => s.findRedemption(operatorObject), null],
        ['loadWallet', (s: Store) => s.loadWallet(operatorObject), null],
        ['listAudit', (s: Store) => s.listAudit(operatorObject), []],
      ] as const)('%s matches nothing for an object', async (_name, call, expected) => {
        expect(await call(store)).toEqual(expected);
      });
    });

    describe('wallets', () => {
      const aliceWallet = (): Wallet => wallet('member:m-alice', { 'm-alice': 50000 }, [reservationRecord('rt-1', 'm-alice', { 'm-alice': 10000 })]);

      it('loads null for an unknown wallet', async () => {
        expect(await store.loadWallet('member:m-nobody')).toBeNull();
      });

      it('inserts at version 0 and stores version 1, leaving the input untouched', async () => {
        const input = aliceWallet();
        expect(await store.saveWallet(input, 0)).toBe(true);
        expect(input.version).toBe(0);
        expect(await store.loadWallet('member:m-alice')).toStrictEqual({ ...aliceWallet(), version: 1 });
      });

      it('refuses version 0 when the wallet exists, and changes nothing', async () => {
        await store.saveWallet(aliceWallet(), 0);
        const other = wallet('member:m-alice', { 'm-alice': 1 });
        expect(await store.saveWallet(other, 0)).toBe(false);
        expect(await store.loadWallet('member:m-alice')).toStrictEqual({ ...aliceWallet(), version: 1 });
      });

      it('saves at the current version, then refuses the stale one and changes nothing', async () => {
        await store.saveWallet(aliceWallet(), 0);
        // Copies: a store may hand out its wallets frozen.
        const first = deepCopy(await store.loadWallet('member:m-alice'));
        const second = deepCopy(await store.loadWallet('member:m-alice'));
        if (!first || !second) throw new Error('wallet expected');
        first.reservations[0]!.reservationAmount = 9000;
        first.reservations[0]!.contributions[0]!.points = 9000;
        expect(await store.saveWallet(first, first.version)).toBe(true);
        second.balances[0]!.pointBalance = 0;
        expect(await store.saveWallet(second, second.version)).toBe(false);
        expect(await store.saveWallet(second, 7)).toBe(false);
        expect(await store.loadWallet('member:m-alice')).toStrictEqual({ ...first, version: 2 });
      });

      it.each([-1, 1.5, Number.NaN])('rejects expectedVersion %p', async (version) => {
        await expect(store.saveWallet(aliceWallet(), version)).rejects.toThrow(RangeError);
      });

      it('round-trips reservations exactly: dates, flags, contribution order', async () => {
        const full = wallet('household:hh-1', { 'm-a': 10, 'm-b': 20 }, [
          reservationRecord('rt-1', 'm-b', { 'm-b': 3, 'm-a': 4 }, { excludedFromCap: true, identifierType: 'EMAIL' }),
          reservationRecord('rt-2', 'm-a', { 'm-a': 0 }, { expiresAt: new Date('2031-05-06T07:08:09.123Z') }),
        ]);
        await store.saveWallet(full, 0);
        const loaded = await store.loadWallet('household:hh-1');
        expect(sorted(loaded)).toStrictEqual(sorted({ ...full, version: 1 }));
        expect(loaded?.reservations[1]?.expiresAt).toBeInstanceOf(Date);
      });

      it('keeps its own wallet: changing the input or a loaded wallet does not change the store', async () => {
        const input = aliceWallet();
        await store.saveWallet(input, 0);
        input.balances[0]!.pointBalance = 1;
        input.reservations[0]!.contributions[0]!.points = 1;
        const loaded = await store.loadWallet('member:m-alice');
        // A loaded wallet is either a copy or frozen (writing to it throws).
        tryToChange(
          () => loaded!.reservations.pop(),
          () => (loaded!.reservations[0]!.reservationAmount = 1),
          () => (loaded!.balances[0]!.pointBalance = 2),
        );
        expect(await store.loadWallet('member:m-alice')).toStrictEqual({ ...aliceWallet(), version: 1 });
      });
    });

    describe('wallet slices', () => {
      const walletId = 'household:hh-1';
      const keyOf = (r: ReservationRecord) => ({ clientId: r.clientId, correlationId: r.correlationId, reservationToken: r.reservationToken });
      const stored = [
        reservationRecord('rt-1', 'm-a', { 'm-a': 60, 'm-b': 40 }),
        reservationRecord('rt-2', 'm-b', { 'm-b': 5 }, { clientId: 'other-app', createdAt: new Date('2029-12-31T23:00:00.000Z') }),
        reservationRecord('rt-gone', 'm-a', { 'm-a': 7 }, { expiresAt: new Date('2020-01-01T00:00:00.000Z') }),
      ];
      const saved = async (): Promise<void> => {
        expect(await store.saveWallet(wallet(walletId, { 'm-a': 500, 'm-b': 300 }, stored), 0)).toBe(true);
      };
      const audit = (version: number): AuditEntry =>
        auditEntry('rt-1', '2030-01-01T00:05:00.000Z', 50, { walletId, walletVersion: version, correlationId: 'm-a', before: null, shares: [] });

      it('reads null for an unknown wallet', async () => {
        expect(await store.loadWalletSlice('member:m-nobody', keyOf(stored[0]!))).toBeNull();
      });

      it('reads a member with the slice when asked, as stored now (null when there is none), whatever its wallet', async () => {
        await saved();
        await store.upsertMembers([memberRecord('m-a', { householdId: 'hh-1' }), memberRecord('m-elsewhere')]);
        expect((await store.loadWalletSlice(walletId, keyOf(stored[0]!), { withMember: 'm-a' }))?.member).toStrictEqual(memberRecord('m-a', { householdId: 'hh-1' }));
        expect((await store.loadWalletSlice(walletId, keyOf(stored[0]!), { withMember: 'm-elsewhere' }))?.member).toStrictEqual(memberRecord('m-elsewhere'));
        expect((await store.loadWalletSlice(walletId, keyOf(stored[0]!), { withMember: 'm-nobody' }))?.member).toBeNull();
        expect((await store.loadWalletSlice(walletId, keyOf(stored[0]!), { withMember: '$where' }))?.member).toBeNull();
        expect(await store.loadWalletSlice(walletId, keyOf(stored[0]!))).not.toHaveProperty('member');
      });

      it('reads the balances, the totals of every stored reservation (expired ones too) and the one under the key', async () => {
        await saved();
        const slice = await store.loadWalletSlice(walletId, keyOf(stored[0]!));
        expect(slice).toStrictEqual({
          walletId,
          version: 1,
          balances: [
            { correlationId: 'm-a', pointBalance: 500 },
            { correlationId: 'm-b', pointBalance: 300 },
          ],
          totals: totalsOf(stored),
          reservation: stored[0],
        });
        expect(slice?.totals?.nextExpiry).toEqual(new Date('2020-01-01T00:00:00.000Z'));
        expect((await store.loadWalletSlice(walletId, keyOf(stored[2]!)))?.reservation).toStrictEqual(stored[2]);
      });

      it("keeps a wallet's member moves through whole saves and reservation changes, and reads them with its slice; a whole save without them removes them", async () => {
        await saved();
        const moves: MemberMove[] = [
          { correlationId: 'm-b', state: 'leaving', walletId: 'household:hh-2', until: new Date('2030-01-01T00:01:00.000Z') },
          { correlationId: 'm-c', state: 'arriving', walletId: 'member:m-c' },
          { correlationId: 'm-d', state: 'left', walletId: 'member:m-d' },
        ];
        const whole = (await store.loadWallet(walletId))!;
        expect(whole).not.toHaveProperty('moves');
        expect(await store.saveWallet({ ...whole, moves }, 1)).toBe(true);
        expect((await store.loadWallet(walletId))?.moves).toStrictEqual(moves);
        const lowered = reservationRecord('rt-1', 'm-a', { 'm-a': 50, 'm-b': 30 });
        expect(await store.saveReservationChange({ walletId, reservation: lowered, totals: withChange(totalsOf(stored), stored[0]!, lowered), audit: audit(3) }, 2)).toBe(true);
        expect((await store.loadWalletSlice(walletId, keyOf(lowered)))?.moves).toStrictEqual(moves);
        expect((await store.loadWallet(walletId))?.moves).toStrictEqual(moves);
        const { moves: _dropped, ...without } = (await store.loadWallet(walletId))!;
        expect(await store.saveWallet(without, 3)).toBe(true);
        expect(await store.loadWallet(walletId)).not.toHaveProperty('moves');
        expect(await store.loadWalletSlice(walletId, keyOf(lowered))).not.toHaveProperty('moves');
      });

      it.each([
        ['another token', { reservationToken: 'rt-9' }],
        ['another client', { clientId: 'other-app' }],
        ['another member', { correlationId: 'm-b' }],
      ])('finds no reservation under %s', async (_case, change) => {
        await saved();
        expect((await store.loadWalletSlice(walletId, { ...keyOf(stored[0]!), ...change }))?.reservation).toBeNull();
      });

      it('replaces one reservation in place with the totals, leaving the rest as stored, its audit entry in the trail', async () => {
        await saved();
        const lowered = reservationRecord('rt-1', 'm-a', { 'm-a': 50, 'm-b': 30 });
        const totals = withChange(totalsOf(stored), stored[0]!, lowered);
        expect(await store.saveReservationChange({ walletId, reservation: lowered, totals, audit: audit(2) }, 1)).toBe(true);
        expect(sorted(await store.loadWallet(walletId))).toStrictEqual(
          sorted({ ...wallet(walletId, { 'm-a': 500, 'm-b': 300 }, [lowered, stored[1]!, stored[2]!]), version: 2 }),
        );
        const slice = await store.loadWalletSlice(walletId, keyOf(lowered));
        expect(slice?.totals).toStrictEqual(totals);
        await settle();
        expect(await store.listAudit('rt-1')).toStrictEqual([audit(2)]);
      });

      it('saves change after change of one wallet, each entry in the trail once', async () => {
        await saved();
        let current = stored[0]!;
        let totals = totalsOf(stored);
        for (let version = 1; version <= 4; version++) {
          const next = reservationRecord('rt-1', 'm-a', { 'm-a': 60 - version, 'm-b': 40 });
          const after = withChange(totals, current, next);
          // No read in between: the store itself keeps the previous change's entry from being replaced before it is in the trail.
          expect(await store.saveReservationChange({ walletId, reservation: next, totals: after, audit: audit(version + 1) }, version)).toBe(true);
          current = next;
          totals = after;
        }
        await settle();
        expect((await store.listAudit('rt-1')).map((e) => e.walletVersion)).toEqual([2, 3, 4, 5]);
        expect((await store.loadWalletSlice(walletId, keyOf(current)))?.reservation).toStrictEqual(current);
      });

      it('adds a reservation under a new key', async () => {
        await saved();
        const added = reservationRecord('rt-new', 'm-b', { 'm-b': 9 }, { excludedFromCap: true });
        const totals = withChange(totalsOf(stored), null, added);
        expect(await store.saveReservationChange({ walletId, reservation: added, totals, audit: audit(2) }, 1)).toBe(true);
        const whole = await store.loadWallet(walletId);
        expect(sorted(whole)?.reservations).toStrictEqual(sorted(wallet(walletId, {}, [...stored, added])).reservations);
        expect(totals).toStrictEqual(totalsOf(whole!.reservations));
        expect((await store.loadWalletSlice(walletId, keyOf(added)))?.reservation).toStrictEqual(added);
      });

      it('drops the expired reservations the change names, with it: the others kept as stored, the totals those of what is left', async () => {
        await saved();
        const lowered = reservationRecord('rt-1', 'm-a', { 'm-a': 50, 'm-b': 30 });
        const totals = withChange(totalsOf([stored[0]!, stored[1]!]), stored[0]!, lowered);
        expect(await store.saveReservationChange({ walletId, reservation: lowered, totals, audit: audit(2), expired: [keyOf(stored[2]!)] }, 1)).toBe(true);
        expect(sorted(await store.loadWallet(walletId))).toStrictEqual(sorted({ ...wallet(walletId, { 'm-a': 500, 'm-b': 300 }, [lowered, stored[1]!]), version: 2 }));
        expect(await store.loadWalletSlice(walletId, keyOf(stored[2]!))).toMatchObject({ reservation: null, totals: totalsOf([lowered, stored[1]!]) });
        await settle();
        expect(await store.listAudit('rt-1')).toStrictEqual([audit(2)]);
      });

      it('puts a new reservation in place of an expired one under the same key', async () => {
        await saved();
        const renewed = reservationRecord('rt-gone', 'm-a', { 'm-a': 3 });
        const totals = withChange(totalsOf([stored[0]!, stored[1]!]), null, renewed);
        expect(await store.saveReservationChange({ walletId, reservation: renewed, totals, audit: null, expired: [keyOf(stored[2]!)] }, 1)).toBe(true);
        expect(sorted(await store.loadWallet(walletId))?.reservations).toStrictEqual(sorted(wallet(walletId, {}, [stored[0]!, stored[1]!, renewed])).reservations);
        expect((await store.loadWalletSlice(walletId, keyOf(renewed)))?.reservation).toStrictEqual(renewed);
      });

      it.each([
        ['a stale version', 0, false],
        ['a version from the future', 2, false],
        ['a stale version, dropping what expired', 0, true],
        ['a version from the future, dropping what expired', 2, true],
      ])('refuses %s and changes nothing', async (_case, version, dropping) => {
        await saved();
        const change = reservationRecord('rt-1', 'm-a', { 'm-a': 1 });
        const totals = withChange(totalsOf(stored), stored[0]!, change);
        const expired = dropping ? { expired: [keyOf(stored[2]!)] } : {};
        expect(await store.saveReservationChange({ walletId, reservation: change, totals, audit: null, ...expired }, version)).toBe(false);
        expect(sorted(await store.loadWallet(walletId))).toStrictEqual(sorted({ ...wallet(walletId, { 'm-a': 500, 'm-b': 300 }, stored), version: 1 }));
      });

      it('refuses a reservation change of a wallet that does not exist', async () => {
        const added = reservationRecord('rt-1', 'm-a', { 'm-a': 1 });
        expect(await store.saveReservationChange({ walletId, reservation: added, totals: totalsOf([added]), audit: null }, 0)).toBe(false);
        expect(await store.loadWallet(walletId)).toBeNull();
      });

      it('keeps the totals of a whole save equal to its reservations', async () => {
        await saved();
        const whole = deepCopy(await store.loadWallet(walletId))!;
        whole.reservations = [reservationRecord('rt-7', 'm-b', { 'm-b': 11 })];
        expect(await store.saveWallet(whole, 1)).toBe(true);
        expect((await store.loadWalletSlice(walletId, keyOf(stored[0]!)))?.totals).toStrictEqual(totalsOf(whole.reservations));
      });
    });

    describe('audit', () => {
      it('stores an entry once, however many saves carry it', async () => {
        const entry = auditEntry('rt-1', '2030-01-01T00:00:01.000Z', 1);
        await saveChangesCarrying(store, settle, [entry, entry]);
        expect(await store.listAudit('rt-1')).toStrictEqual([entry]);
      });

      it('keeps the entry in the trail, not with the wallet: a loaded wallet carries none', async () => {
        const entry = auditEntry('rt-1', '2030-01-01T00:00:01.000Z', 1);
        await store.saveWallet({ ...wallet('member:m-alice', { 'm-alice': 5 }), audit: entry }, 0);
        expect(await store.loadWallet('member:m-alice')).toStrictEqual({ ...wallet('member:m-alice', { 'm-alice': 5 }), version: 1 });
        await settle();
        expect(await store.listAudit('rt-1')).toStrictEqual([entry]);
      });

      it('lists the entries of one token oldest first; equal times in wallet version order', async () => {
        await saveChangesCarrying(store, settle, [
          auditEntry('rt-1', '2030-01-01T00:00:03.000Z', 3),
          auditEntry('rt-1', '2030-01-01T00:00:01.000Z', 1),
          auditEntry('rt-2', '2030-01-01T00:00:00.000Z', 9),
          auditEntry('rt-1', '2030-01-01T00:00:02.000Z', 20),
          auditEntry('rt-1', '2030-01-01T00:00:02.000Z', 21),
        ]);
        const listed = await store.listAudit('rt-1');
        expect(listed.map((e) => e.after.reservationAmount)).toEqual([1, 20, 21, 3]);
        expect(listed[0]).toStrictEqual(auditEntry('rt-1', '2030-01-01T00:00:01.000Z', 1));
        expect(await store.listAudit('rt-none')).toEqual([]);
      });

      it('keeps a CREATE entry with no before state, as a copy', async () => {
        const entry: AuditEntry = { ...auditEntry('rt-1', '2030-01-01T00:00:00.000Z', 5), action: 'CREATE', before: null };
        await saveChangesCarrying(store, settle, [entry]);
        entry.shares.push({ correlationId: 'm-x', points: 1 });
        const [listed] = await store.listAudit('rt-1');
        tryToChange(() => (listed!.after.reservationAmount = 0));
        expect(await store.listAudit('rt-1')).toStrictEqual([{ ...auditEntry('rt-1', '2030-01-01T00:00:00.000Z', 5), action: 'CREATE', before: null }]);
      });
    });

    describe('seeding and health', () => {
      it('accepts empty upserts', async () => {
        await store.upsertClients([]);
        await store.upsertMembers([]);
        await store.upsertCatalogueItems([]);
        await store.upsertRedemptions([]);
        await store.upsertVoucherDefinitions([]);
        expect(await store.findMember('m-a')).toBeNull();
      });

      it('answers ping', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });
    });

    describeLoadFixture(() => store);
    describeRace(() => store);
  });
}

// ---------------------------------------------------------------------------
// loadFixture through the port

function describeLoadFixture(currentStore: () => Store): void {
  describe('loadFixture', () => {
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
      await loadFixture(currentStore(), baseFixture(), fixtureNow);
      expect((await currentStore().findApiKey(hashSecret('pk_minimal_0001')))?.key).toStrictEqual({
        keyId: fixtureKeyId('minimal-app', 0),
        clientId: 'minimal-app',
        kind: 'secret',
        origins: [],
        digest: hashSecret('pk_minimal_0001'),
        createdAt: fixtureNow,
        expiresAt: null,
        revokedAt: null,
      });
      expect(await currentStore().findClient('minimal-app')).toStrictEqual({
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
      await loadFixture(currentStore(), fixture, fixtureNow);
      expect((await currentStore().listApiKeys('multi-app')).map((k) => k.keyId).sort()).toEqual([fixtureKeyId('multi-app', 0), fixtureKeyId('multi-app', 1)].sort());
      const revokedAt = new Date('2030-01-02T00:00:00.000Z');
      await currentStore().updateApiKey('multi-app', fixtureKeyId('multi-app', 0), { revokedAt });
      await loadFixture(currentStore(), fixture, new Date('2030-01-03T00:00:00.000Z'));
      expect((await currentStore().findApiKey(hashSecret('pk_multi_0001')))?.key).toMatchObject({ revokedAt, createdAt: fixtureNow });
      // A key changed in the fixture is a new key at that place.
      await loadFixture(currentStore(), { clients: [{ ...fixture.clients![0]!, apiKey: 'pk_multi_0003' }] }, fixtureNow);
      expect((await currentStore().findApiKey(hashSecret('pk_multi_0003')))?.key).toMatchObject({ keyId: fixtureKeyId('multi-app', 0), revokedAt: null });
      expect(await currentStore().findApiKey(hashSecret('pk_multi_0001'))).toBeNull();
    });

    it("loads a client's publishable keys with their origins; loading again keeps a revocation and follows the fixture's origins", async () => {
      const page = 'https://app.example.com';
      const client = fixtureClient('web-app', 'sk_web_0001', { publishableKeys: [{ apiKey: 'pk_web_0001', origins: [page] }] });
      await loadFixture(currentStore(), { clients: [client] }, fixtureNow);
      const keyId = fixtureKeyId('web-app', 0, 'publishable');
      expect((await currentStore().findApiKey(hashSecret('pk_web_0001')))?.key).toStrictEqual({
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
      await currentStore().updateApiKey('web-app', keyId, { revokedAt });
      const moved = { ...client, publishableKeys: [{ apiKey: 'pk_web_0001', origins: [page, 'https://m.example.com'] }] };
      await loadFixture(currentStore(), { clients: [moved] }, new Date('2030-01-03T00:00:00.000Z'));
      expect((await currentStore().findApiKey(hashSecret('pk_web_0001')))?.key).toMatchObject({
        origins: [page, 'https://m.example.com'],
        revokedAt,
        createdAt: fixtureNow,
      });
      expect(await currentStore().listLivePublishableKeys(new Date('2030-01-03T00:00:00.000Z'), 10)).toStrictEqual([]);
    });

    it('applies member defaults and derives wallet ids', async () => {
      await loadFixture(currentStore(), baseFixture(), fixtureNow);
      expect(await currentStore().findMember('m-solo')).toStrictEqual({
        correlationId: 'm-solo',
        walletId: 'member:m-solo',
        householdId: null,
        eligibleForRedemption: true,
        privileges: [],
      });
      expect(await currentStore().findMember('m-a')).toStrictEqual({
        correlationId: 'm-a',
        walletId: 'household:hh-1',
        householdId: 'hh-1',
        eligibleForRedemption: false,
        privileges: ['REDEEM'],
      });
      expect((await currentStore().findMember('m-b'))?.walletId).toBe('household:hh-1');
    });

    it('puts balances and reservations into wallets, defaulting expiry from the client', async () => {
      await loadFixture(currentStore(), baseFixture(), fixtureNow);
      expect(await currentStore().loadWallet('household:hh-1')).toStrictEqual({
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
      const solo = await currentStore().loadWallet('member:m-solo');
      expect(solo?.reservations[0]?.expiresAt).toEqual(new Date('2030-02-01T00:00:00Z'));
      expect(solo?.reservations[0]?.createdAt).toEqual(new Date('2029-12-31T00:00:00Z'));
    });

    it('replaces records with the same key instead of adding them', async () => {
      await loadFixture(currentStore(), baseFixture(), fixtureNow);
      const again = baseFixture();
      again.members![0]!.pointBalance = 999;
      again.reservations![0] = { ...again.reservations![0]!, reservationAmount: 10, contributions: [{ correlationId: 'm-b', points: 10 }] };
      again.clients![0]!.vouchersEnabled = false;
      await loadFixture(currentStore(), again, fixtureNow);

      const household = await currentStore().loadWallet('household:hh-1');
      expect(household?.reservations).toHaveLength(1);
      expect(household?.reservations[0]?.contributions).toEqual([{ correlationId: 'm-b', points: 10 }]);
      expect(household?.balances).toHaveLength(2);
      expect((await currentStore().loadWallet('member:m-solo'))?.balances).toEqual([{ correlationId: 'm-solo', pointBalance: 999 }]);
      expect((await currentStore().findClient('minimal-app'))?.vouchersEnabled).toBe(false);
    });

    it('keeps a reservation of another client with the same token apart', async () => {
      await loadFixture(currentStore(), baseFixture(), fixtureNow);
      const other = baseFixture().reservations![0]!;
      await loadFixture(currentStore(), { reservations: [{ ...other, clientId: 'minimal-app' }], clients: baseFixture().clients }, fixtureNow);
      const tokens = (await currentStore().loadWallet('household:hh-1'))?.reservations.map((r) => `${r.clientId}/${r.reservationToken}`);
      expect(tokens?.sort()).toEqual(['minimal-app/rt-1', 'slow-app/rt-1']);
    });

    it('moves a member that changed household: its balance leaves the old wallet', async () => {
      const fixture = baseFixture();
      fixture.reservations = [];
      await loadFixture(currentStore(), fixture, fixtureNow);
      await loadFixture(currentStore(), { members: [fixtureMember('m-b', 250, { householdId: 'hh-2' })] }, fixtureNow);

      expect((await currentStore().loadWallet('household:hh-1'))?.balances).toEqual([{ correlationId: 'm-a', pointBalance: 300 }]);
      expect((await currentStore().loadWallet('household:hh-2'))?.balances).toEqual([{ correlationId: 'm-b', pointBalance: 250 }]);
      expect((await currentStore().findMember('m-b'))?.walletId).toBe('household:hh-2');
      expect((await currentStore().findMember('m-a'))?.walletId).toBe('household:hh-1');

      await loadFixture(currentStore(), { members: [fixtureMember('m-b', 250)] }, fixtureNow);
      expect((await currentStore().loadWallet('household:hh-2'))?.balances).toEqual([]);
      expect((await currentStore().loadWallet('member:m-b'))?.balances).toEqual([{ correlationId: 'm-b', pointBalance: 250 }]);
    });

    it('refuses to move a member that funds an active reservation in its old wallet', async () => {
      await loadFixture(currentStore(), baseFixture(), fixtureNow);
      const move = loadFixture(currentStore(), { members: [fixtureMember('m-b', 200, { householdId: 'hh-2' })] }, fixtureNow);
      await expect(move).rejects.toThrow(FixtureError);
      await expect(move).rejects.toThrow('/members/0/householdId');
      expect((await currentStore().findMember('m-b'))?.walletId).toBe('household:hh-1');
    });

    it('accepts a reservation of members already in the store', async () => {
      await loadFixture(currentStore(), baseFixture(), fixtureNow);
      await loadFixture(
        currentStore(),
        {
          reservations: [fixtureReservation('rt-9', 'm-b', { 'm-a': 5 }, { clientId: 'x', identifierType: 'EMAIL', expiresAt: '2030-01-02T00:00:00Z' })],
        },
        fixtureNow,
      );
      expect((await currentStore().loadWallet('household:hh-1'))?.reservations.map((r) => r.reservationToken).sort()).toEqual(['rt-1', 'rt-9']);
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
      const load = loadFixture(currentStore(), fixture, fixtureNow);
      await expect(load).rejects.toThrow(FixtureError);
      await expect(load).rejects.toThrow(path);
      expect(await currentStore().findClient('minimal-app')).toBeNull();
      expect(await currentStore().findApiKey(hashSecret('pk_minimal_0001'))).toBeNull();
      expect(await currentStore().findMember('m-solo')).toBeNull();
    });

    describe('the limit of live reservations per wallet', () => {
      const limits = { maxActiveReservationsPerWallet: 3 };
      const members = [fixtureMember('m-solo', 10_000)];
      const clients = [fixtureClient('minimal-app', 'pk_minimal_0001')];
      const live = (token: string, extra: Partial<FixtureReservation> = {}): FixtureReservation =>
        fixtureReservation(token, 'm-solo', { 'm-solo': 1 }, { clientId: 'minimal-app', identifierType: 'EMAIL', ...extra });
      const expired = { expiresAt: new Date(fixtureNow.getTime() - 1000).toISOString() };

      it('takes a wallet filled to the limit; expired reservations do not count', async () => {
        await loadFixture(currentStore(), { clients, members, reservations: [live('rt-1'), live('rt-2'), live('rt-old', expired), live('rt-3')] }, fixtureNow, limits);
        expect((await currentStore().loadWallet('member:m-solo'))?.reservations).toHaveLength(4);
      });

      it('refuses one past the limit, naming the first reservation past it, before writing anything', async () => {
        const fixture = { clients, members, reservations: [live('rt-1'), live('rt-old', expired), live('rt-2'), live('rt-3'), live('rt-4')] };
        const load = loadFixture(currentStore(), fixture, fixtureNow, limits);
        await expect(load).rejects.toThrow(FixtureError);
        await expect(load).rejects.toThrow('/reservations/4: wallet member:m-solo would hold 4 live reservations; MAX_ACTIVE_RESERVATIONS_PER_WALLET allows 3');
        expect(await currentStore().findMember('m-solo')).toBeNull();
        expect(await currentStore().loadWallet('member:m-solo')).toBeNull();
      });

      it('counts what the wallet already holds, except the records the fixture replaces', async () => {
        await loadFixture(currentStore(), { clients, members, reservations: [live('rt-1'), live('rt-2')] }, fixtureNow, limits);
        // rt-2 replaced, rt-3 new: 3 live.
        await loadFixture(currentStore(), { clients, reservations: [live('rt-2'), live('rt-3')] }, fixtureNow, limits);
        const more = loadFixture(currentStore(), { clients, reservations: [live('rt-4')] }, fixtureNow, limits);
        await expect(more).rejects.toThrow('/reservations/0: wallet member:m-solo would hold 4 live reservations');
      });

      it('loads thousands of reservations into one wallet in one pass (linear in the fixture)', async () => {
        const count = 5000;
        const reservations = Array.from({ length: count }, (_, i) => live(`rt-${i}`));
        await loadFixture(currentStore(), { clients, members: [fixtureMember('m-solo', count)], reservations }, fixtureNow, {
          maxActiveReservationsPerWallet: count,
        });
        const stored = await currentStore().loadWallet('member:m-solo');
        expect(stored?.reservations).toHaveLength(count);
        expect(stored?.version).toBe(1);
      }, 60_000);
    });

    it('loads the demo fixture', async () => {
      await loadFixture(currentStore(), await readFixtureFile(demoFixturePath), fixtureNow);
      const ids = async (unit: string) => (await currentStore().listPublishedVoucherDefinitions(unit, 'CUX')).map((d) => d.voucherDefinitionId);
      expect(await ids('LCL')).toEqual(['vd-0001', 'vd-0003', 'vd-0004']);
      expect(await ids('SDM')).toEqual(['vd-0007']);
      expect((await currentStore().findApiKey(hashSecret('demo_secret_partner_app_0001')))?.client?.clientId).toBe('partner-app');
      for (const id of ['m-hh2-a', 'm-hh2-b', 'm-hh2-c']) expect((await currentStore().findMember(id))?.walletId).toBe('household:hh-2');
    });
  });
}

// ---------------------------------------------------------------------------
// Racing writers

function describeRace(currentStore: () => Store): void {
  describe('racing compare-and-set loops', () => {
    const walletId = 'household:hh-race';
    const racers = 50;

    it(
      `${racers} concurrent loops each lowering one reservation by 1 point end exact, points conserved`,
      async () => {
        const store = currentStore();
        const start = wallet(walletId, { 'm-a': 1000, 'm-b': 500 }, [
          reservationRecord('rt-race', 'm-a', { 'm-a': 60, 'm-b': 40 }),
          reservationRecord('rt-other', 'm-b', { 'm-b': 7 }),
        ]);
        await store.saveWallet(start, 0);
        let conflicts = 0;

        /** The loop every writer runs: load, modify, save against the version read, retry on conflict. */
        const lowerByOne = async (racer: number): Promise<void> => {
          for (let attempt = 0; attempt < 1000; attempt++) {
            const current = deepCopy(await store.loadWallet(walletId));
            const target = current?.reservations.find((r) => r.reservationToken === 'rt-race');
            if (!current || !target) throw new Error('race wallet vanished');
            // Alternate contributors so both members' shares move.
            const from = target.contributions[racer % 2];
            if (!from) throw new Error('contribution missing');
            target.reservationAmount -= 1;
            from.points -= 1;
            if (await store.saveWallet(current, current.version)) return;
            conflicts++;
          }
          throw new Error(`racer ${racer} never won`);
        };
        await Promise.all(Array.from({ length: racers }, (_, racer) => lowerByOne(racer)));

        const end = await store.loadWallet(walletId);
        const raced = end?.reservations.find((r) => r.reservationToken === 'rt-race');
        expect(conflicts).toBeGreaterThan(0);
        expect(end?.version).toBe(1 + racers);
        expect(raced?.reservationAmount).toBe(100 - racers);
        expect(raced?.contributions).toEqual([
          { correlationId: 'm-a', points: 60 - racers / 2 },
          { correlationId: 'm-b', points: 40 - racers / 2 },
        ]);
        // Balances never move when a reservation shrinks: the points come back as available balance.
        expect(end?.balances).toEqual(start.balances);
        const reserved = (end?.reservations ?? []).reduce((sum, r) => sum + r.reservationAmount, 0);
        const contributed = (end?.reservations ?? []).flatMap((r) => r.contributions).reduce((sum, c) => sum + c.points, 0);
        expect(contributed).toBe(reserved);
        expect(reserved).toBe(107 - racers);
      },
      60_000,
    );

    it(
      `${racers} concurrent slice loops each lowering one reservation by 1 point end exact, with exact totals`,
      async () => {
        const store = currentStore();
        await store.saveWallet(wallet(walletId, { 'm-a': 1000, 'm-b': 500 }, [reservationRecord('rt-race', 'm-a', { 'm-a': 60, 'm-b': 40 }), reservationRecord('rt-other', 'm-b', { 'm-b': 7 })]), 0);
        const key = { clientId: 'partner-app', correlationId: 'm-a', reservationToken: 'rt-race' };
        let conflicts = 0;

        const lowerByOne = async (racer: number): Promise<void> => {
          for (let attempt = 0; attempt < 1000; attempt++) {
            const slice = await store.loadWalletSlice(walletId, key);
            if (!slice?.reservation || !slice.totals) throw new Error('race wallet vanished');
            const before = slice.reservation;
            const from = racer % 2;
            const after = {
              ...before,
              reservationAmount: before.reservationAmount - 1,
              contributions: before.contributions.map((c, i) => ({ ...c, points: c.points - (i === from ? 1 : 0) })),
            };
            const change = { walletId, reservation: after, totals: withChange(slice.totals, before, after), audit: null };
            if (await store.saveReservationChange(change, slice.version)) return;
            conflicts++;
          }
          throw new Error(`racer ${racer} never won`);
        };
        await Promise.all(Array.from({ length: racers }, (_, racer) => lowerByOne(racer)));

        const end = await store.loadWallet(walletId);
        expect(conflicts).toBeGreaterThan(0);
        expect(end?.version).toBe(1 + racers);
        expect(end?.reservations.find((r) => r.reservationToken === 'rt-race')?.contributions).toEqual([
          { correlationId: 'm-a', points: 60 - racers / 2 },
          { correlationId: 'm-b', points: 40 - racers / 2 },
        ]);
        expect((await store.loadWalletSlice(walletId, key))?.totals).toStrictEqual(totalsOf(end!.reservations));
      },
      60_000,
    );
  });
}
