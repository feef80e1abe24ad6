import { Metrics } from '../../metrics';
import { commandLabels } from './command-labels';
import { MongoConnection } from './connection';
import { dropTestDatabase, describeOnMongoDB, uniqueDbName } from '../test-support/mongo-test-server';

/*
 * `loyalty_mongodb_commands_total` fed by a real client's command events,
 * as composition.ts wires it: one count per command sent, labelled by
 * command and collection, with every other name folded into `other`.
 */

/** The counter's value for one pair of labels (0 when absent). */
async function commands(metrics: Metrics, command: string, collection: string): Promise<number> {
  const text = await metrics.render();
  const line = text.split('\n').find((l) => l.startsWith(`loyalty_mongodb_commands_total{command="${command}",collection="${collection}"} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
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
});
