import { MongoClient, type Collection } from 'mongodb';
import type { SetAside, SweepReport } from '../../port';
import { auditEntry } from '../../test-support/records';
import { collectionNames } from '../collections';
import { dropTestDatabase, describeOnMongoDB, uniqueDbName } from '../../test-support/mongo-test-server';
import { auditDoc, sweepBucketOf, type AuditDoc, type ReservationDoc, type WalletDoc, type WalletWithDelivery } from './documents';
import { Outbox } from './outbox';
import { OutboxSweep } from './outbox-sweep';

/*
 * The outbox sweep on MongoDB when some outboxes cannot be delivered (a
 * poison outbox): they are set aside with a back-off, counted and reported
 * with their wallet, and the sweep goes on with the others of their
 * bucket. The sweep's own clock is the test's; its outbox is the real one,
 * but for the wallets the test poisons.
 */

/** Wallet ids of sweep bucket 0, in order. */
function idsOfBucketZero(count: number, prefix: string): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < count; i++) if (sweepBucketOf(`${prefix}${i}`) === 0) ids.push(`${prefix}${i}`);
  return ids;
}

describeOnMongoDB('the outbox sweep with outboxes that cannot be delivered', (uri) => {
  const dbName = uniqueDbName('sweep-poison');
  let client: MongoClient;
  let wallets: Collection<WalletDoc>;
  const start = new Date('2030-01-01T00:00:00.000Z');
  let now: Date;
  const setAside: SetAside[] = [];
  const reports: SweepReport[] = [];
  const poison = idsOfBucketZero(3, 'household:poison-');
  const healthy = idsOfBucketZero(3, 'household:healthy-');
  let sweep: OutboxSweep;

  beforeAll(async () => {
    client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
    const db = client.db(dbName);
    wallets = db.collection<WalletDoc>(collectionNames.wallets);
    const collections = { wallets, reservations: db.collection<ReservationDoc>(collectionNames.reservations), audit: db.collection<AuditDoc>(collectionNames.audit) };
    now = start;
    const outbox = new Outbox({ collections: () => collections, run: (op) => op(), now: () => now });
    // The poison ones are the oldest: a sweep that takes them first, and only them, in its first batch.
    const saved = [...poison, ...healthy].map((walletId, i): WalletDoc => ({
      _id: walletId,
      bucket: 0,
      version: 2,
      balances: [],
      totals: { held: [], daily: [], count: 0, nextExpiry: null },
      outbox: { at: new Date(start.getTime() - 60_000 + i), reservations: [], audit: auditDoc(auditEntry(`rt-${i}`, start.toISOString(), 10, { walletId, walletVersion: 2 })) },
    }));
    await wallets.insertMany(saved);
    sweep = new OutboxSweep(
      {
        wallets: () => wallets,
        auditCollection: () => collectionNames.audit,
        outbox: {
          ensureDelivered: (doc: WalletWithDelivery) => (poison.includes(doc._id) ? Promise.reject(new Error('E11000-like refusal')) : outbox.ensureDelivered(doc)),
          clear: (versions) => outbox.clear(versions),
        },
        run: (op) => op(),
        now: () => now,
        onSetAside: (aside) => setAside.push(aside),
        onRun: (report) => reports.push(report),
      },
      { intervalMs: 3_600_000, graceMs: 10_000, batchSize: 2, maxBatches: 5, retryMs: 60_000, maxRetryMs: 3_600_000 },
    );
  });
  afterAll(async () => {
    await client.close();
    await dropTestDatabase(uri, dbName);
  });

  const outboxOf = async (walletId: string) => (await wallets.findOne({ _id: walletId }))?.outbox;

  it('sets each failing outbox aside (counted, reported with its wallet) and delivers the others of its bucket', async () => {
    const report = await sweep.runOnce();
    expect(report).toEqual({ delivered: 3, cleared: 3, failed: 3, pending: 3, oldestPendingAt: new Date(start.getTime() - 60_000) });
    expect(reports).toEqual([report]);
    for (const walletId of healthy) expect(await outboxOf(walletId)).toBeUndefined();
    // Outboxes of one batch are delivered together: they are set aside in whatever order their writes end.
    const inWalletOrder = setAside.map((a) => [a.walletId, a.failures, a.retryAt] as const).sort(([a], [b]) => a.localeCompare(b));
    expect(inWalletOrder).toEqual([...poison].sort((a, b) => a.localeCompare(b)).map((walletId) => [walletId, 1, new Date(start.getTime() + 60_000)]));
    for (const walletId of poison) expect(await outboxOf(walletId)).toMatchObject({ failures: 1, retryAt: new Date(start.getTime() + 60_000) });
  });

  it('takes a set-aside outbox again only at its retry, each failure doubling the wait; the backlog stays reported', async () => {
    now = new Date(start.getTime() + 30_000);
    expect(await sweep.runOnce()).toMatchObject({ delivered: 0, failed: 0, pending: 3 });
    now = new Date(start.getTime() + 60_000);
    expect(await sweep.runOnce()).toMatchObject({ delivered: 0, failed: 3, pending: 3 });
    for (const walletId of poison) expect(await outboxOf(walletId)).toMatchObject({ failures: 2, retryAt: new Date(now.getTime() + 120_000) });
  });
});
