import { MemoryStore } from '../memory/memory-store';
import { StoreUnavailableError, voucherDefinitionsVersionReader } from '../port';
import { redemptionRecord, wallet } from './records';
import { faultInjecting } from './fault-injecting-store';

describe('faultInjecting', () => {
  const make = () => faultInjecting(new MemoryStore({ sessionSweepIntervalMs: 0 }));

  it('delegates while healthy', async () => {
    const store = make();
    const redemption = redemptionRecord('r', 'm');
    await store.upsertRedemptions([redemption]);
    expect(await store.findRedemption('r')).toEqual(redemption);
  });

  it.each([
    ['unavailable', StoreUnavailableError],
    ['error', Error],
  ] as const)('fails every call with %s, as a rejection', async (fault, type) => {
    const store = make();
    store.inject({ fault });
    await expect(store.ping()).rejects.toBeInstanceOf(type);
    await expect(store.findMember('m')).rejects.toBeInstanceOf(type);
  });

  it('fails only the planned methods, the planned number of times, then heals', async () => {
    const store = make();
    store.inject({ fault: 'unavailable', methods: ['saveWallet'], times: 2 });
    await expect(store.ping()).resolves.toBeUndefined();
    const emptyWallet = wallet('w', {});
    await expect(store.saveWallet(emptyWallet, 0)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.saveWallet(emptyWallet, 0)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.saveWallet(emptyWallet, 0)).resolves.toBe(true);
  });

  it('lets tests close the store while it fails', async () => {
    const store = make();
    store.inject({ fault: 'error' });
    await expect(store.close()).resolves.toBeUndefined();
  });

  it('offers no voucher definitions version: every listing reaches the store and its faults', () => {
    expect(voucherDefinitionsVersionReader(make())).toBeNull();
  });
});
