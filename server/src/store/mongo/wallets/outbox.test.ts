import type { Collection } from 'mongodb';
import { memberIdsOf } from '../../../domain/member-ids';
import { auditEntry, reservationRecord } from '../../test-support/records';
import type { OutboxDoc } from './documents';
import { Outbox, outboxDoc, type OutboxCollections } from './outbox';
import { fakeTimeouts, nextTurn } from '../../../test-support/time';

/*
 * The bounds of what a process keeps for the outbox, against fake
 * collections (the behaviour on a real server: test/integration/outbox.test.ts).
 */

/** Collections whose writes are recorded and settle when the test says. */
function fakeCollections() {
  const writes: string[] = [];
  const pending: Array<() => void> = [];
  const write = (name: string) => async () => {
    writes.push(name);
    await new Promise<void>((resolve) => pending.push(resolve));
    return {};
  };
  const collection = (name: string) =>
    ({ collectionName: name, bulkWrite: write(`${name}.bulkWrite`), insertOne: write(`${name}.insertOne`), aggregate: () => ({ toArray: async () => [] }) }) as unknown as Collection<never>;
  const collections = { wallets: collection('wallets'), reservations: collection('reservations'), audit: collection('audit') } as unknown as OutboxCollections;
  return { collections, writes, settleAll: () => pending.splice(0).forEach((resolve) => resolve()) };
}

const outboxWithAudit = (walletId: string, version: number): OutboxDoc => ({
  at: new Date(),
  reservations: [],
  audit: { _id: `${walletId}@${version}` } as OutboxDoc['audit'],
});

describe('Outbox bounds', () => {
  // The batch's timer runs on jest's clock; the batch's send right after an answer is a turn of the event loop.
  beforeEach(fakeTimeouts);
  afterEach(() => jest.useRealTimers());

  it('starts at most maxUnderway deliveries after answers; past it the next reader or the sweep delivers', async () => {
    const fake = fakeCollections();
    const outbox = new Outbox({ collections: () => fake.collections, run: (op) => op(), now: () => new Date(), maxUnderway: 3, batchDelayMs: 1 });
    for (let i = 0; i < 5; i++) outbox.deliverLater(`w-${i}`, 2, outboxWithAudit(`w-${i}`, 2));
    await jest.advanceTimersByTimeAsync(2);
    expect(outbox.sizes.underway).toBe(3);
    // The three as one batch: one write of their audit entries.
    expect(fake.writes).toEqual(['audit.bulkWrite']);
    fake.settleAll();
    await outbox.settle();
    expect(outbox.sizes.underway).toBe(0);
    // Room again: the next one starts.
    outbox.deliverLater('w-9', 2, outboxWithAudit('w-9', 2));
    await jest.advanceTimersByTimeAsync(2);
    expect(outbox.sizes.underway).toBe(1);
    fake.settleAll();
    await outbox.settle();
  });

  it('sends the deliveries of one batch window together, and at once when a reader needs one of them', async () => {
    const fake = fakeCollections();
    const outbox = new Outbox({ collections: () => fake.collections, run: (op) => op(), now: () => new Date(), batchDelayMs: 60_000 });
    outbox.deliverLater('w-1', 2, outboxWithAudit('w-1', 2));
    outbox.deliverLater('w-2', 5, outboxWithAudit('w-2', 5));
    await jest.advanceTimersByTimeAsync(2 * 60_000 - 1);
    expect(fake.writes).toEqual([]);
    // A save of w-1 at version 2 needs its outbox delivered first: the batch goes now.
    const saving = outbox.ensureDeliveredBeforeSave('w-1', 2);
    await nextTurn();
    expect(fake.writes).toEqual(['audit.bulkWrite']);
    fake.settleAll();
    await saving;
    await outbox.settle();
  });

  it('sends a batch with the first answer once its oldest has waited the batch delay, and at twice the delay when no answer comes', async () => {
    const fake = fakeCollections();
    let now = 1_000;
    const outbox = new Outbox({ collections: () => fake.collections, run: (op) => op(), now: () => new Date(), batchDelayMs: 40, clockMs: () => now });
    outbox.deliverLater('w-1', 2, outboxWithAudit('w-1', 2));
    now += 39;
    outbox.deliverLater('w-2', 2, outboxWithAudit('w-2', 2));
    await nextTurn();
    expect(fake.writes).toEqual([]);
    now += 1;
    outbox.deliverLater('w-3', 2, outboxWithAudit('w-3', 2));
    // Not within the answer: after it, in the same turn of the event loop.
    expect(fake.writes).toEqual([]);
    await nextTurn();
    expect(fake.writes).toEqual(['audit.bulkWrite']);
    fake.settleAll();
    await outbox.settle();
    // Alone: its own timer, at twice the delay.
    outbox.deliverLater('w-4', 2, outboxWithAudit('w-4', 2));
    await jest.advanceTimersByTimeAsync(2 * 40 - 1);
    expect(fake.writes).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(fake.writes).toEqual(['audit.bulkWrite', 'audit.bulkWrite']);
    fake.settleAll();
    await outbox.settle();
  });

  it('remembers the delivered version of at most maxRemembered wallets (forgetting costs one read later)', async () => {
    const fake = fakeCollections();
    const outbox = new Outbox({ collections: () => fake.collections, run: (op) => op(), now: () => new Date(), maxRemembered: 2 });
    for (let i = 0; i < 3; i++) await outbox.ensureDelivered({ _id: `w-${i}`, bucket: 0, version: 1, balances: [], totals: { held: [], daily: [], count: 0, nextExpiry: null } });
    expect(outbox.sizes.remembered).toBeLessThanOrEqual(2);
    expect(fake.writes).toEqual([]);
  });
});

describe('a delivery that fails', () => {
  it('is marked with every member its outboxes name, whose ids its text may quote (the log shows them as LOG_MEMBER_IDS says)', async () => {
    const refusals: Error[] = [];
    const refuse = () => {
      const refused = new Error('the write was refused');
      refusals.push(refused);
      return Promise.reject(refused);
    };
    const collection = (name: string) => ({ collectionName: name, bulkWrite: refuse }) as unknown as Collection<never>;
    const collections = { wallets: collection('wallets'), reservations: collection('reservations'), audit: collection('audit') } as unknown as OutboxCollections;
    const outbox = new Outbox({ collections: () => collections, run: (op) => op(), now: () => new Date() });
    const household = outboxDoc(
      [{ key: { clientId: 'partner-app', correlationId: 'm-hh-1', reservationToken: 'rt-1' }, reservation: reservationRecord('rt-1', 'm-hh-1', { 'm-hh-1': 10, 'm-hh-2': 5 }) }],
      auditEntry('rt-1', '2030-01-01T00:00:00.000Z', 15, { correlationId: 'm-hh-1', walletId: 'household:hh-1', shares: [{ correlationId: 'm-hh-3', points: -1 }] }),
      new Date(),
    );
    const own = (member: string) => outboxDoc([], auditEntry('rt-2', '2030-01-01T00:00:00.000Z', 3, { correlationId: member }), new Date());

    // Alone: its own members.
    const failure = await outbox.deliverNow('member:m-solo', 2, own('m-solo')).catch((error: unknown) => error);
    expect(failure).toBe(refusals[0]);
    expect([...memberIdsOf(failure)].sort()).toEqual(['m-solo']);
    // Batched after answers: those of every outbox of the batch.
    outbox.deliverLater('household:hh-1', 4, household);
    outbox.deliverLater('member:m-alice', 7, own('m-alice'));
    await outbox.settle();
    expect(refusals).toHaveLength(2);
    expect([...memberIdsOf(refusals[1])].sort()).toEqual(['m-alice', 'm-hh-1', 'm-hh-2', 'm-hh-3']);
  });
});
