import { loadFixture } from '../../features/load/load-fixture';
import { parseFixture } from '../../features/load/parse-fixture';
import { MemoryStore } from '../memory/memory-store';
import { catalogueItemRecord, clientRecord, definitionRecord, memberRecord, redemptionRecord, reservationRecord } from './records';
import {
  fixtureCatalogueItem,
  fixtureClient,
  fixtureDefinition,
  fixtureMember,
  fixtureRedemption,
  fixtureReservation,
} from '../../test-support/fixture-entries';

const now = new Date('2030-01-01T00:00:00.000Z');

describe('the record builders', () => {
  let store: MemoryStore;
  beforeEach(() => {
    store = new MemoryStore({ sessionSweepIntervalMs: 0 });
  });
  afterEach(() => store.close());

  it('build fixture entries the loader takes, which it stores as the domain builders build them', async () => {
    const fixture = {
      clients: [fixtureClient('partner-app', 'pk_records_0001', { defaultBusinessUnit: 'LCL' })],
      members: [fixtureMember('m-a', 500, { householdId: 'hh-1', privileges: ['REDEEM'] }), fixtureMember('m-b', 300, { householdId: 'hh-1' })],
      catalogueItems: [fixtureCatalogueItem('0001')],
      redemptions: [fixtureRedemption('rd-1', 'm-a')],
      reservations: [
        fixtureReservation('rt-1', 'm-a', { 'm-a': 60, 'm-b': 40 }, { createdAt: '2030-01-01T00:00:00.000Z', expiresAt: '2030-01-01T00:15:00.000Z' }),
      ],
      voucherDefinitions: [fixtureDefinition('vd-1', { usageChannels: ['CUX'] })],
    };
    await loadFixture(store, parseFixture(fixture), now);

    expect(await store.findClient('partner-app')).toStrictEqual(clientRecord('partner-app'));
    expect(await store.findMember('m-a')).toStrictEqual(memberRecord('m-a', { householdId: 'hh-1' }));
    expect(await store.findMember('m-b')).toStrictEqual(memberRecord('m-b', { householdId: 'hh-1', privileges: [] }));
    expect(await store.findCatalogueItems(['0001'])).toStrictEqual([catalogueItemRecord('0001')]);
    expect(await store.findRedemption('rd-1')).toStrictEqual(redemptionRecord('rd-1', 'm-a'));
    expect(await store.listPublishedVoucherDefinitions('LCL', 'CUX')).toStrictEqual([definitionRecord('vd-1', { usageChannels: ['CUX'] })]);
    expect((await store.loadWallet('household:hh-1'))?.reservations).toStrictEqual([reservationRecord('rt-1', 'm-a', { 'm-a': 60, 'm-b': 40 })]);
  });

  it.each([
    ['points by member, in their order', { 'm-b': 3, 'm-a': 4 }],
    ['contributions', [{ correlationId: 'm-b', points: 3 }, { correlationId: 'm-a', points: 4 }]],
  ])('give a reservation the sum of its contributions, from %s', (_case, contributions) => {
    for (const built of [fixtureReservation('rt-1', 'm-a', contributions), reservationRecord('rt-1', 'm-a', contributions)]) {
      expect(built.reservationAmount).toBe(7);
      expect(built.contributions).toStrictEqual([
        { correlationId: 'm-b', points: 3 },
        { correlationId: 'm-a', points: 4 },
      ]);
    }
  });

  it('copy what they are given: a preset shared by several records, or changed later, changes no record', () => {
    const preset = { enabledBusinessUnits: ['LCL', 'SDM'] };
    const contributions = [{ correlationId: 'm-a', points: 4 }];
    const first = clientRecord('a-app', preset);
    const second = clientRecord('b-app', preset);
    const reservation = fixtureReservation('rt-1', 'm-a', contributions);
    first.enabledBusinessUnits.push('GAS');
    preset.enabledBusinessUnits.push('XYZ');
    contributions[0]!.points = 1;
    expect(second.enabledBusinessUnits).toEqual(['LCL', 'SDM']);
    expect(reservation.contributions).toEqual([{ correlationId: 'm-a', points: 4 }]);
  });

  it('give a definition its fields in the fixture format order, whatever the order of the overrides', () => {
    const built = fixtureDefinition('vd-1', { features: [], usageChannels: ['CUX'], status: 'DRAFT', adminId: 'ADM-1' });
    expect(Object.keys(built)).toEqual([
      'voucherDefinitionId',
      'adminId',
      'businessUnit',
      'status',
      'usageChannels',
      'definitionName',
      'rewardType',
      'rewardMetadata',
      'expiryRule',
      'creative',
      'pointValue',
      'redeemableValue',
      'systemOfRecord',
      'version',
      'basedOn',
      'features',
    ]);
    expect(Object.keys(fixtureDefinition('vd-2'))).not.toContain('usageChannels');
  });

  it("derive a member's wallet from its household unless the wallet is given", () => {
    expect(memberRecord('m-a').walletId).toBe('member:m-a');
    expect(memberRecord('m-a', { householdId: 'hh-1' }).walletId).toBe('household:hh-1');
    expect(memberRecord('m-a', { householdId: 'hh-1', walletId: 'member:m-a' }).walletId).toBe('member:m-a');
  });
});
