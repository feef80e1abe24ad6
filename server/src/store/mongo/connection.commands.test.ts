import { Metrics } from '../../metrics';
import { withChange } from '../../domain/wallet-totals';
import { auditEntry, reservationRecord, wallet } from '../test-support/records';
import { commandLabels } from './command-labels';
import { MongoConnection } from './connection';
import { MongoStore } from './mongo-store';
import { dropTestDatabase, describeOnMongoDB, uniqueDbName } from '../test-support/mongo-test-server';

/*
 * `loyalty_mongodb_commands_total` fed by a real client's command events,
 * as composition.ts wires it: one count per command sent, labelled by
 * command and collection, with every other name folded into `other`; and
 * the outbox sweep's share of them, `loyalty_outbox_sweep_commands_total`.
 */

/** The counter's value for one pair of labels (0 when absent). */
async function commands(metrics: Metrics, command: string, collection: string): Promise<number> {
  const text = await metrics.render();
  const line = text.split('\n').find((l) => l.startsWith(`loyalty_mongodb_commands_total{command="${command}",collection="${collection}"} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

/** A counter's samples summed over its labels. */
async function total(metrics: Metrics, name: string): Promise<number> {
  const text = await metrics.render();
  return [...text.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'gm'))].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** Every label value the counter shows. */
async function labelValues(metrics: Metrics): Promise<Set<string>> {
  const text = await metrics.render();
  const values = [...text.matchAll(/^loyalty_mongodb_commands_total\{command="([^"]*)",collection="([^"]*)"\}/gm)].flatMap((m) => [m[1]!, m[2]!]);
  return new Set(values);
}

describeOnMongoDB('MongoDB commands counted from the client (loyalty_mongodb_commands_total)', (uri) => {
  const dbName = uniqueDbName('command-metrics');
  let metrics: Metrics;
  let connection: MongoConnection;

  beforeEach(async () => {
    metrics = new Metrics();
    connection = await MongoConnection.open(
      { uri, dbName, serverSelectionTimeoutMS: 10_000, watchdogIntervalMs: 0 },
      { onCommand: (event) => metrics.mongoCommand(commandLabels(event)) },
    );
  });

  afterEach(async () => {
    await connection.close();
  });

  afterAll(() => dropTestDatabase(uri, dbName));

  it('counts each command once, by name and collection, a cursor\'s getMore under its collection', async () => {
    const members = connection.db.collection('members');
    await members.insertMany([{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }] as never[]);
    await members.updateOne({ _id: 'a' } as never, { $set: { seen: true } });
    // A batch of one: the first document comes with the find, the others with getMore.
    expect(await members.find({}, { batchSize: 1 }).toArray()).toHaveLength(3);
    await connection.db.collection('rateLimits').findOneAndUpdate({ key: 'k' }, { $inc: { points: 1 } }, { upsert: true });

    expect(await commands(metrics, 'insert', 'members')).toBe(1);
    expect(await commands(metrics, 'update', 'members')).toBe(1);
    expect(await commands(metrics, 'find', 'members')).toBe(1);
    expect(await commands(metrics, 'getMore', 'members')).toBeGreaterThanOrEqual(2);
    expect(await commands(metrics, 'findAndModify', 'rateLimits')).toBe(1);
  });

  it('folds unknown commands and collections into `other`, and counts the pings under their own name', async () => {
    await connection.db.collection('notOurs').insertOne({ x: 1 });
    await connection.db.command({ dbStats: 1 });
    await connection.ping();

    expect(await commands(metrics, 'insert', 'other')).toBe(1);
    expect(await commands(metrics, 'other', 'other')).toBe(1);
    expect(await commands(metrics, 'ping', 'other')).toBe(1);
    const values = await labelValues(metrics);
    expect(values.has('notOurs')).toBe(false);
    expect(values.has('dbStats')).toBe(false);
  });

  it("counts every command of a sweep run in loyalty_outbox_sweep_commands_total too, and none of a wallet change's", async () => {
    const store = MongoStore.over(connection);
    const walletId = 'member:m-swept';
    const key = { clientId: 'partner-app', correlationId: 'm-swept', reservationToken: 'rt-swept' };
    const reservation = (amount: number) => reservationRecord(key.reservationToken, key.correlationId, { 'm-swept': amount }, { expiresAt: new Date(Date.now() + 3_600_000) });
    // Operation B's store calls: the wallet's slice, its change, the change's outbox delivered after the answer.
    expect(await store.saveWallet(wallet(walletId, { 'm-swept': 1000 }, [reservation(500)]), 0)).toBe(true);
    const slice = await store.loadWalletSlice(walletId, key);
    const audit = auditEntry(key.reservationToken, new Date().toISOString(), 400, { correlationId: key.correlationId, walletId, walletVersion: 2 });
    const change = { walletId, reservation: reservation(400), totals: withChange(slice!.totals, slice!.reservation, reservation(400)), audit };
    expect(await store.saveReservationChange(change, 1)).toBe(true);
    await store.outbox.settle();
    const before = await total(metrics, 'loyalty_mongodb_commands_total');
    expect(before).toBeGreaterThan(0);
    expect(await total(metrics, 'loyalty_outbox_sweep_commands_total')).toBe(0);

    // The change's outbox, delivered and past a grace of 0, is the sweep's to clear.
    const sweep = store.outbox.start({}, { intervalMs: 3_600_000, graceMs: 0, batchSize: 10, maxBatches: 1 });
    try {
      expect(await sweep.runOnce()).toMatchObject({ cleared: 1, pending: 0 });
    } finally {
      await store.outbox.close();
    }
    const swept = (await total(metrics, 'loyalty_mongodb_commands_total')) - before;
    expect(swept).toBeGreaterThan(1);
    expect(await total(metrics, 'loyalty_outbox_sweep_commands_total')).toBe(swept);
  });
});
