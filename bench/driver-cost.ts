/**
 * The MongoDB driver's own CPU per command, for the floor of each MongoDB
 * scenario (README.md, "The floor"): a serial loop of the commands the
 * server sends, by kind (`command collection`, as `loyalty_mongodb_commands_total`
 * names them), with the raw driver and nothing else, against the bench's
 * database, on the runtime measured. Runs in a process of its own:
 *
 *   node bench/dist/bench/driver-cost.js <config.json>
 *
 * and prints one JSON line, `DriverCosts`. Each command is the server's in
 * shape and size: the same collection, filter and pipeline, documents copied
 * from what the server stored (a wallet the bench's B changed, with its
 * outbox; an audit entry; a session), the same client options as the server's
 * client with metrics on (command monitoring, a listener counting each
 * command), majority writes but for the rate limit's claims. Writes go to
 * documents of their own (`driver-cost-...` ids), never to the scenarios'.
 * The kinds are interleaved, so that the machine's drifts hit all alike.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { MongoClient, type Db } from 'mongodb';

export interface DriverCostConfig {
  uri: string;
  dbName: string;
  /** Commands per kind measured, after `warmup` of each. */
  commands: number;
  warmup: number;
  /** Then seconds of the connected client sending nothing: the driver's own timers (its pool's check every 100 ms, heartbeats). */
  idleSeconds: number;
}

export interface DriverCosts {
  /** CPU microseconds and commands per kind, summed over the loop; kinds the database gave no template for are absent. */
  byKind: Record<string, { commands: number; cpuUs: number }>;
  /** CPU microseconds the idle client spent, and over how many seconds. */
  idle: { cpuUs: number; seconds: number };
}

type Command = () => Promise<unknown>;

/** The project's documents: keyed by strings, any fields. */
type Doc = { _id: string; [field: string]: unknown };

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error('usage: driver-cost.js <config.json>');
  const config = JSON.parse(readFileSync(file, 'utf8')) as DriverCostConfig;
  // As the server's client (store/mongo/connection.ts, with metrics on).
  const client = new MongoClient(config.uri, { appName: 'loyalty-bench-driver', ignoreUndefined: true, heartbeatFrequencyMS: 2000, monitorCommands: true });
  let counted = 0;
  client.on('commandStarted', () => counted++);
  await client.connect();
  try {
    const db = client.db(config.dbName, { writeConcern: { w: 'majority' } });
    const commands = await commandsOf(db);
    const costs: DriverCosts['byKind'] = {};
    for (const kind of Object.keys(commands)) costs[kind] = { commands: 0, cpuUs: 0 };
    for (let i = 0; i < config.warmup + config.commands; i++) {
      for (const [kind, command] of Object.entries(commands)) {
        const before = process.cpuUsage();
        await command();
        const spent = process.cpuUsage(before);
        if (i < config.warmup) continue;
        costs[kind]!.commands++;
        costs[kind]!.cpuUs += spent.user + spent.system;
      }
    }
    // Each kind is one command (a check that the loop measures what it says).
    const expected = (config.warmup + config.commands) * Object.keys(commands).length;
    if (counted < expected) throw new Error(`the loop sent ${counted} commands, expected at least ${expected}`);
    await cleanUp(db);
    const idleFrom = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, config.idleSeconds * 1000));
    const idle = process.cpuUsage(idleFrom);
    console.log(JSON.stringify({ byKind: costs, idle: { cpuUs: idle.user + idle.system, seconds: config.idleSeconds } } satisfies DriverCosts));
  } finally {
    await client.close();
  }
}

const scratch = 'driver-cost-';
const freshId = (): string => `${scratch}${randomBytes(8).toString('hex')}`;

/**
 * One command of each kind the server sends, shaped as the server's store
 * sends it (server/src/store/mongo: mongo-store.ts, wallets/mongo-wallets.ts,
 * wallets/outbox.ts, quota-claim.ts, definitions-version.ts), on templates
 * read from the database. A kind whose template is missing (no B ran: no audit entry) is
 * left out.
 */
async function commandsOf(db: Db): Promise<Record<string, Command>> {
  const collection = (name: string) => db.collection<Doc>(name);
  const members = collection('members');
  const sessions = collection('sessions');
  const apiKeys = collection('apiKeys');
  const wallets = collection('wallets');
  const reservations = collection('reservations');
  const audit = collection('audit');
  const meta = collection('meta');
  const rateLimits = db.collection<{ key: string; claimed: number; claimers: string[]; expire: Date }>('rateLimits', { writeConcern: { w: 1 } });

  const member = await members.findOne({});
  const session = await sessions.findOne({});
  const key = await apiKeys.findOne({});
  // A wallet B changed: it carries the outbox of its last change, as B reads it.
  const wallet = (await wallets.findOne({ outbox: { $exists: true } })) ?? (await wallets.findOne({}));
  const reservation = wallet ? await reservations.findOne({ walletId: wallet._id }) : null;
  const entry = await audit.findOne({});
  const commands: Record<string, Command> = {};

  if (member) commands['find members'] = () => members.findOne({ _id: member._id });
  if (session) {
    commands['insert sessions'] = () => sessions.insertOne({ ...session, _id: freshId() });
    commands['aggregate sessions'] = () =>
      sessions
        .aggregate([
          { $match: { _id: session._id } },
          { $lookup: { from: 'clients', localField: 'clientId', foreignField: '_id', as: 'client' } },
          { $lookup: { from: 'members', localField: 'correlationId', foreignField: '_id', as: 'member' } },
          { $lookup: { from: 'apiKeys', localField: 'keyId', foreignField: '_id', as: 'key' } },
        ])
        .toArray();
  }
  if (key) {
    commands['aggregate apiKeys'] = () =>
      apiKeys.aggregate([{ $match: { digest: key.digest } }, { $lookup: { from: 'clients', localField: 'clientId', foreignField: '_id', as: 'client' } }]).toArray();
  }
  commands['find meta'] = () => meta.findOne({ _id: 'voucherDefinitions' }, { projection: { version: 1 } });
  const claimKey = `${scratch}claim`;
  commands['findAndModify rateLimits'] = () =>
    rateLimits.findOneAndUpdate(
      { key: claimKey },
      { $inc: { claimed: 20 }, $addToSet: { claimers: 'driver' }, $setOnInsert: { expire: new Date(Date.now() + 120_000) } },
      { upsert: true, returnDocument: 'after', projection: { _id: 0, claimed: 1, claimers: 1 } },
    );
  if (wallet) {
    commands['aggregate wallets'] = () =>
      wallets
        .aggregate([
          { $match: { bucket: wallet.bucket, _id: wallet._id } },
          { $addFields: { storedId: reservation?._id ?? `${wallet._id}:none` } },
          { $lookup: { from: 'reservations', localField: 'storedId', foreignField: '_id', as: 'stored' } },
          { $lookup: { from: 'audit', localField: 'outbox.audit._id', foreignField: '_id', as: 'delivered' } },
          { $project: { 'delivered.walletId': 0, 'delivered.before': 0, 'delivered.after': 0, 'delivered.shares': 0 } },
        ])
        .toArray();
    // The compare-and-set, on a copy of the wallet: every one meets its version.
    const copy: Doc = { ...wallet, _id: freshId(), version: 1 };
    await wallets.insertOne(copy);
    let version = 1;
    commands['update wallets'] = () =>
      wallets.updateOne({ bucket: copy.bucket, _id: copy._id, version }, { $set: { version: ++version, totals: wallet.totals, outbox: wallet.outbox ?? null } });
  }
  if (reservation) {
    // The outbox's delivery of one change: its reservation, replaced when older.
    const id = freshId();
    let walletVersion = 0;
    commands['update reservations'] = () =>
      reservations.bulkWrite(
        [{ replaceOne: { filter: { _id: id, walletVersion: { $lt: ++walletVersion } }, replacement: { ...reservation, _id: undefined, walletVersion }, upsert: true } }],
        { ordered: false },
      );
  }
  if (entry) commands['insert audit'] = () => audit.bulkWrite([{ insertOne: { document: { ...entry, _id: freshId() } } }], { ordered: false });
  return commands;
}

/** The documents the loop wrote (the bench drops its database at the end too). */
async function cleanUp(db: Db): Promise<void> {
  const ours = { _id: { $regex: `^${scratch}` } };
  await Promise.all(['sessions', 'wallets', 'reservations', 'audit'].map((name) => db.collection<Doc>(name).deleteMany(ours)));
  await db.collection<Doc>('rateLimits').deleteMany({ key: `${scratch}claim` });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
