/**
 * `ListingStore` (store/port.ts): the published voucher definitions
 * Operation A lists, by business unit and channel.
 */
import { definitionRecord } from '../records';
import { tryToChange, type CurrentStore } from './contract-support';

export function describeListingStoreContract(current: CurrentStore): void {
  describe('ListingStore', () => {
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
      await current.store.upsertVoucherDefinitions(definitions);
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
      const listed = await current.store.listPublishedVoucherDefinitions(businessUnit, channel);
      expect(listed.map((d) => d.voucherDefinitionId)).toEqual(ids);
    });

    it('returns each definition exactly as stored: every field, nothing added', async () => {
      const listed = await current.store.listPublishedVoucherDefinitions('LCL', 'CUX');
      const byId = new Map(definitions.map((d) => [d.voucherDefinitionId, d]));
      for (const definition of listed) expect(definition).toStrictEqual(byId.get(definition.voucherDefinitionId));
    });

    it('keeps its own records: changing a listed definition does not change the store', async () => {
      const [first] = await current.store.listPublishedVoucherDefinitions('LCL', 'CUX');
      if (!first) throw new Error('expected a definition');
      tryToChange(
        () => (first.status = 'ARCHIVED'),
        () => (first.rewardMetadata.amount = 1000),
        () => delete first.usageChannels,
      );
      const [again] = await current.store.listPublishedVoucherDefinitions('LCL', 'CUX');
      expect(again).toStrictEqual(definitions.find((d) => d.voucherDefinitionId === 'vd-01'));
    });

    it('replaces a definition with the same id, across statuses and business units', async () => {
      await current.store.upsertVoucherDefinitions([
        definitionRecord('vd-01', { status: 'ARCHIVED' }),
        definitionRecord('vd-03', { businessUnit: 'SDM', usageChannels: ['CUX'] }),
        definitionRecord('vd-04', { usageChannels: ['CUX'] }),
      ]);
      const ids = async (unit: string) => (await current.store.listPublishedVoucherDefinitions(unit, 'CUX')).map((d) => d.voucherDefinitionId);
      expect(await ids('LCL')).toEqual(['vd-04', 'vd-1', 'vd-10']);
      expect(await ids('SDM')).toEqual(['vd-03', 'vd-06']);
    });
  });
}
