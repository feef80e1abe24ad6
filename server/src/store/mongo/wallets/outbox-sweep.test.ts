import { MongoClient, type Collection, type CommandStartedEvent } from 'mongodb';
import type { SetAside, SweepReport } from '../../port';
import { auditEntry } from '../../test-support/records';
import { collectionNames } from '../collections';
import { dropTestDatabase, describeOnMongoDB, uniqueDbName } from '../../test-support/mongo-test-server';
import { auditDoc, sweepBucketOf, type AuditDoc, type ReservationDoc, type WalletDoc, type WalletWithDelivery } from './documents';
import { Outbox } from './outbox';
import { OutboxSweep, sweepComment } from './outbox-sweep';

/*
 * The outbox sweep on MongoDB: what one run sends (one read when no outbox
 * is past the grace; each command carrying the sweep's comment) and
 * reports; and what it does when some outboxes cannot be delivered (a
 * poison outbox): they are set aside with a back-off, counted and reported
 * with their wallet, and the sweep goes on with the others of their
 * bucket. The sweep's own clock is the test's; its outbox is the real one,
 * but for the wallets the test poisons.
 */

/** Wallet ids of one sweep bucket, in order. */
function idsOfBucket(bucket: number, count: number, prefix: string): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < count; i++) if (sweepBucketOf(`${prefix}${i}`) === bucket) ids.push(`${prefix}${i}`);
  return ids;
}

const idsOfBucketZero = (count: number, prefix: string) => idsOfBucket(0, count, prefix);

/** An outbox of a wallet, saved `ageMs` before `at`: delivered (its audit entry in the trail) or not, set aside until `retryInMs` after `at` or not. */
interface SeededOutbox {
  ageMs: number;
  delivered: boolean;
  retryInMs?: number;
}

describeOnMongoDB('one run of the outbox sweep: what it sends and reports', (uri) => {
  const dbName = uniqueDbName('sweep-run');
  const now = new Date('2030-01-01T00:00:00.000Z');
  const graceMs = 10_000;
  let client: MongoClient;
  let collections: { wallets: Collection<WalletDoc>; reservations: Collection<ReservationDoc>; audit: Collection<AuditDoc> };
  const sent: CommandStartedEvent[] = [];

  beforeAll(async () => {
    client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000, monitorCommands: true }).connect();
    const db = client.db(dbName);
    collections = { wallets: db.collection(collectionNames.wallets), reservations: db.collection(collectionNames.reservations), audit: db.collection(collectionNames.audit) };
    client.on('commandStarted', (event) => sent.push(event));
  });
  afterAll(async () => {
    await client.close();
    await dropTestDatabase(uri, dbName);
  });

  /** Wallets of sweep bucket 5 with these outboxes (their entries in the trail when delivered). */
  async function seed(outboxes: SeededOutbox[]): Promise<void> {
    await Promise.all([collections.wallets.deleteMany({}), collections.reservations.deleteMany({}), collections.audit.deleteMany({})]);
    const ids = idsOfBucket(5, outboxes.length, 'household:sweep-');
    const wallets = outboxes.map(({ ageMs, retryInMs }, i): WalletDoc => {
      const entry = auditDoc(auditEntry(`rt-${i}`, now.toISOString(), 10, { walletId: ids[i]!, walletVersion: 2 }));
      const retry = retryInMs === undefined ? {} : { retryAt: new Date(now.getTime() + retryInMs), failures: 1 };
      return { _id: ids[i]!, bucket: 5, version: 2, balances: [], totals: { held: [], daily: [], count: 0, nextExpiry: null }, outbox: { at: new Date(now.getTime() - ageMs), reservations: [], audit: entry, ...retry } };
    });
    if (wallets.length > 0) await collections.wallets.insertMany(wallets);
    const entries = wallets.filter((_, i) => outboxes[i]!.delivered).map((w) => w.outbox!.audit!);
    if (entries.length > 0) await collections.audit.insertMany(entries);
  }

  /** The commands sent, as `name collection` and how many of each. */
  const tally = (events: CommandStartedEvent[]): Record<string, number> => {
    const counts: Record<string, number> = {};
    for (const e of events) {
      const name = `${e.commandName} ${String(e.commandName === 'getMore' ? e.command.collection : e.command[e.commandName])}`;
      counts[name] = (counts[name] ?? 0) + 1;
    }
    return counts;
  };

  const none = { delivered: 0, cleared: 0, failed: 0, pending: 0, oldestPendingAt: null };
  // A run that finds something past the grace reads each bucket's due outboxes and counts what is left there: 16 + 16.
  const bucketReads = 32;

  it.each<[string, SeededOutbox[], Record<string, number>, SweepReport, number]>([
    ['no outbox at all: one read, nothing pending', [], { 'find wallets': 1 }, none, 0],
    ['outboxes within the grace only: one read, nothing pending (none is past it)', [{ ageMs: 1_000, delivered: false }, { ageMs: 9_999, delivered: true }], { 'find wallets': 1 }, none, 2],
    [
      'delivered outboxes past the grace in one bucket: cleared in one write, nothing pending',
      [{ ageMs: 60_000, delivered: true }, { ageMs: 30_000, delivered: true }, { ageMs: 1_000, delivered: true }],
      { 'find wallets': 1, 'aggregate wallets': bucketReads, 'update wallets': 1 },
      { ...none, cleared: 2 },
      1,
    ],
    [
      'an outbox nobody delivered: delivered (its entry), then cleared',
      [{ ageMs: 60_000, delivered: false }],
      { 'find wallets': 1, 'aggregate wallets': bucketReads, 'insert audit': 1, 'update wallets': 1 },
      { ...none, delivered: 1, cleared: 1 },
      0,
    ],
    [
      'an outbox set aside until later: left alone, and reported pending with its age',
      [{ ageMs: 90_000, delivered: false, retryInMs: 60_000 }, { ageMs: 30_000, delivered: true }],
      { 'find wallets': 1, 'aggregate wallets': bucketReads, 'update wallets': 1 },
      { ...none, cleared: 1, pending: 1, oldestPendingAt: new Date(now.getTime() - 90_000) },
      1,
    ],
  ])('%s', async (_case, outboxes, commands, report, outboxesLeft) => {
    await seed(outboxes);
    const outbox = new Outbox({ collections: () => collections, run: (op) => op(), now: () => now });
    const sweep = new OutboxSweep(
      { wallets: () => collections.wallets, auditCollection: () => collectionNames.audit, outbox, run: (op) => op(), now: () => now },
      { intervalMs: 3_600_000, graceMs, batchSize: 10, maxBatches: 2 },
    );
    sent.length = 0;
    expect(await sweep.runOnce()).toEqual(report);
    expect(tally(sent)).toEqual(commands);
    // Every command of the run is marked as the sweep's (the metrics count them apart by it).
    expect(sent.filter((e) => e.command.comment !== sweepComment)).toEqual([]);
    expect(await collections.wallets.countDocuments({ outbox: { $exists: true } })).toBe(outboxesLeft);
  });
});

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
          ensureDelivered: (doc: WalletWithDelivery, options) => (poison.includes(doc._id) ? Promise.reject(new Error('E11000-like refusal')) : outbox.ensureDelivered(doc, options)),
          clear: (versions, options) => outbox.clear(versions, options),
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
