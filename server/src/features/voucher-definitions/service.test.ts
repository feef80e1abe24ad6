import type { VoucherDefinitionRecord } from '../../domain/model';
import { isSnapshot } from '../../domain/snapshot';
import { MemoryStore } from '../../store/memory/memory-store';
import { clientRecord, definitionRecord } from '../../store/test-support/records';
import { createVoucherDefinitionService, maxCachedListings } from './service';

/*
 * The listing is cached per business unit only on a store that says when
 * its definitions change (the memory store). Every other test reaches the
 * service through a wrapped store, which turns the cache off: these hold the
 * cached path to the contract's rules (published only, usable on CUX).
 */

const client = clientRecord('client-partner');

/** A published LCL definition usable on the member channel (CUX). */
const definition = (voucherDefinitionId: string, changes: Partial<VoucherDefinitionRecord> = {}): VoucherDefinitionRecord =>
  definitionRecord(voucherDefinitionId, { usageChannels: ['CUX'], ...changes });

let store: MemoryStore;
beforeEach(() => {
  store = new MemoryStore({ sessionSweepIntervalMs: 0 });
});
afterEach(() => store.close());

const ids = (list: readonly { voucherDefinitionId: string }[]) => list.map((d) => d.voucherDefinitionId);

describe('the cached listing of the memory store', () => {
  it('answers the same frozen listing while no definition changes', async () => {
    await store.upsertVoucherDefinitions([definition('vd-1')]);
    const service = createVoucherDefinitionService({ store });
    const first = await service.listVoucherDefinitions(client, undefined);
    expect(isSnapshot(first)).toBe(true);
    expect(await service.listVoucherDefinitions(client, undefined)).toBe(first);
  });

  it.each<[string, Partial<VoucherDefinitionRecord>]>([
    ['unpublished', { status: 'DRAFT' }],
    ['moved off the member channel', { usageChannels: ['POS'] }],
    ['moved to another business unit', { businessUnit: 'SDM' }],
  ])('drops a definition %s after it was listed', async (_case, change) => {
    await store.upsertVoucherDefinitions([definition('vd-1'), definition('vd-2')]);
    const service = createVoucherDefinitionService({ store });
    expect(ids(await service.listVoucherDefinitions(client, undefined))).toEqual(['vd-1', 'vd-2']);
    await store.upsertVoucherDefinitions([definition('vd-1', change)]);
    expect(ids(await service.listVoucherDefinitions(client, undefined))).toEqual(['vd-2']);
  });

  it('lists a definition published after the first listing', async () => {
    await store.upsertVoucherDefinitions([definition('vd-1')]);
    const service = createVoucherDefinitionService({ store });
    await service.listVoucherDefinitions(client, undefined);
    await store.upsertVoucherDefinitions([definition('vd-0')]);
    expect(ids(await service.listVoucherDefinitions(client, undefined))).toEqual(['vd-0', 'vd-1']);
  });
});

describe('the listing kept by version (a store that answers its version asynchronously, as MongoDB does)', () => {
  function setUp() {
    let version = 1;
    const listed: string[] = [];
    const lookups: boolean[] = [];
    const counted = {
      listPublishedVoucherDefinitions: (businessUnit: string, channel: string) => {
        listed.push(businessUnit);
        return store.listPublishedVoucherDefinitions(businessUnit, channel);
      },
    };
    const service = createVoucherDefinitionService({
      store: counted,
      listingVersion: async () => version,
      onLookup: (hit) => lookups.push(hit),
    });
    return { service, listed, lookups, bump: () => version++ };
  }
  const twoUnits = clientRecord('client-partner', { enabledBusinessUnits: ['LCL', 'SDM'] });

  it('lists each business unit once while the version stays, and again once it moves', async () => {
    await store.upsertVoucherDefinitions([definition('vd-1'), definition('vd-2', { businessUnit: 'SDM' })]);
    const { service, listed, lookups, bump } = setUp();
    const first = await service.listVoucherDefinitions(twoUnits, 'LCL');
    expect(await service.listVoucherDefinitions(twoUnits, 'LCL')).toBe(first);
    expect(ids(await service.listVoucherDefinitions(twoUnits, 'SDM'))).toEqual(['vd-2']);
    await store.upsertVoucherDefinitions([definition('vd-3')]);
    // Not yet told: the version has not moved.
    expect(ids(await service.listVoucherDefinitions(twoUnits, 'LCL'))).toEqual(['vd-1']);
    bump();
    expect(ids(await service.listVoucherDefinitions(twoUnits, 'LCL'))).toEqual(['vd-1', 'vd-3']);
    expect(listed).toEqual(['LCL', 'SDM', 'LCL']);
    expect(lookups).toEqual([false, true, false, true, false]);
  });

  it(`keeps the listings of at most ${maxCachedListings} business units, the least recently listed going first`, async () => {
    const units = Array.from({ length: maxCachedListings + 1 }, (_, i) => `BU-${i}`);
    const everyUnit = clientRecord('client-partner', { enabledBusinessUnits: units });
    const { service, listed } = setUp();
    for (const unit of units) await service.listVoucherDefinitions(everyUnit, unit);
    listed.splice(0);
    await service.listVoucherDefinitions(everyUnit, units[units.length - 1]);
    await service.listVoucherDefinitions(everyUnit, units[0]);
    expect(listed).toEqual([units[0]]);
  });

  it('answers nothing kept when the version cannot be read: the failure reaches the caller', async () => {
    const service = createVoucherDefinitionService({
      store,
      listingVersion: () => Promise.reject(new Error('store unavailable')),
    });
    await expect(service.listVoucherDefinitions(client, undefined)).rejects.toThrow('store unavailable');
  });
});
