import { MemoryStore } from '../../store/memory/memory-store';
import { wallet } from '../../store/test-support/records';
import { MemberMoveSteps } from './member-move-steps';

/*
 * The fences' leases, on a clock the test moves (the races of a load
 * against the API: test/integration/load-while-serving.test.ts).
 */

const start = new Date('2030-01-01T00:00:00.000Z').getTime();
const move = { correlationId: 'm-b', fromWalletId: 'household:hh-1', toWalletId: 'household:hh-2' };

async function setUp() {
  const store = new MemoryStore({ sessionSweepIntervalMs: 0 });
  await store.saveWallet(wallet('household:hh-1', { 'm-a': 100, 'm-b': 50 }), 0);
  let nowMs = start;
  const moves = new MemberMoveSteps(store, [move], { now: new Date(start), clock: () => new Date(nowMs), leaseMs: 60_000 });
  const fenceUntil = async () => {
    const fence = (await store.loadWallet('household:hh-1'))?.moves?.[0];
    return fence?.state === 'leaving' ? fence.until.getTime() - start : null;
  };
  return { store, moves, fenceUntil, advance: (ms: number) => (nowMs += ms) };
}

describe('MemberMoveSteps', () => {
  it('renews its fences once half their lease has passed, not before', async () => {
    const { moves, fenceUntil, advance } = await setUp();
    expect(await moves.fence()).toEqual([]);
    expect(await fenceUntil()).toBe(60_000);
    advance(29_000);
    await moves.renewIfDue();
    expect(await fenceUntil()).toBe(60_000);
    advance(1_000);
    await moves.renewIfDue();
    expect(await fenceUntil()).toBe(90_000);
  });

  it('makes no wallet to fence a member whose old wallet does not exist', async () => {
    const store = new MemoryStore({ sessionSweepIntervalMs: 0 });
    const moves = new MemberMoveSteps(store, [move], { now: new Date(start), clock: () => new Date(start), leaseMs: 60_000 });
    expect(await moves.fence()).toEqual([]);
    expect(await moves.commit()).toEqual([]);
    await moves.finish();
    expect(await store.loadWallet('household:hh-1')).toBeNull();
  });
});
