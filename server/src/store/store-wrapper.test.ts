import { wrapStore, observedStore } from './store-wrapper';
import { MemoryStore } from './memory/memory-store';
import { StoreUnavailableError, storeMethods, voucherDefinitionsVersionReader, type Store } from './port';
import { memberRecord, redemptionRecord } from './test-support/records';

const member = memberRecord('m-1');

describe('wrapStore', () => {
  it('sends every port method through the hook, with its arguments, and returns what the hook returns', async () => {
    const seen: Array<[string, readonly unknown[]]> = [];
    const store = wrapStore(new MemoryStore({ sessionSweepIntervalMs: 0 }), async (method, args, call) => {
      seen.push([method, args]);
      return call();
    });
    expect(Object.keys(store).filter((name) => name !== 'voucherDefinitionsVersion').sort()).toEqual([...storeMethods].sort());
    await store.upsertMembers([member]);
    expect(await store.findMember('m-1')).toStrictEqual(member);
    expect(seen).toEqual([
      ['upsertMembers', [[member]]],
      ['findMember', ['m-1']],
    ]);
  });

  it('calls the store bound to itself, and lets the hook answer instead', async () => {
    const memory = new MemoryStore({ sessionSweepIntervalMs: 0 });
    const madeUp = redemptionRecord('made-up', 'm-1');
    const store = wrapStore(memory, async (method, _args, call) => (method === 'findRedemption' ? madeUp : call()));
    await store.upsertMembers([member]);
    expect(await memory.findMember('m-1')).toStrictEqual(member);
    expect(await store.findRedemption('r-1')).toBe(madeUp);
  });

  it('forwards the voucher definitions version synchronously, unless told not to', async () => {
    const memory = new MemoryStore({ sessionSweepIntervalMs: 0 });
    const plain = wrapStore(memory, (_method, _args, call) => call());
    const read = voucherDefinitionsVersionReader(plain);
    const before = read?.();
    await memory.upsertVoucherDefinitions([]);
    expect(read?.()).toBe(memory.voucherDefinitionsVersion());
    expect(read?.()).not.toBe(before);
    expect(voucherDefinitionsVersionReader(wrapStore(memory, (_method, _args, call) => call(), { forwardVersion: false }))).toBeNull();
  });

  it('offers no version when the store has none', () => {
    const unversioned = Object.fromEntries(storeMethods.map((method) => [method, async () => undefined])) as unknown as Store;
    expect('voucherDefinitionsVersion' in wrapStore(unversioned, (_method, _args, call) => call())).toBe(false);
  });
});

describe('observedStore', () => {
  it('times every call and classifies its failure: unavailable, another error, or none', async () => {
    const memory = new MemoryStore({ sessionSweepIntervalMs: 0 });
    jest.spyOn(memory, 'ping').mockRejectedValueOnce(new StoreUnavailableError()).mockRejectedValueOnce(new Error('bug'));
    const observed: Array<[string, string | null]> = [];
    const store = observedStore(memory, (method, seconds, failure) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      observed.push([method, failure]);
    });
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.ping()).rejects.toThrow('bug');
    await store.ping();
    expect(observed).toEqual([
      ['ping', 'unavailable'],
      ['ping', 'error'],
      ['ping', null],
    ]);
  });

  it('forwards the voucher definitions version synchronously, so that what is cached behind it stays cached', () => {
    const memory = new MemoryStore({ sessionSweepIntervalMs: 0 });
    expect(voucherDefinitionsVersionReader(observedStore(memory, () => undefined))?.()).toBe(memory.voucherDefinitionsVersion());
  });
});
