import type { CommandStartedEvent, Document } from 'mongodb';
import { fixtureKeyId } from '../../server/src/domain/secrets';
import { demoFixturePath, readFixtureFile } from '../../server/src/features/load/read-fixture';
import { loadFixture } from '../../server/src/features/load/load-fixture';
import { parseFixture } from '../../server/src/features/load/parse-fixture';
import { planOf, shardPlan, type ShardKey } from '../../server/src/store/mongo/shard-plan';
import { sweepBuckets } from '../../server/src/store/mongo/wallets/documents';
import { sweepComment } from '../../server/src/store/mongo/wallets/outbox-sweep';
import { clockAtWindowStart } from '../support/rate-limit-window';
import { rateLimitWindowMs } from '../../server/src/rate-limit/windows';
import { dropTestDatabase, describeOnMongoDB, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';
import { fixtureReservation } from '../../server/src/test-support/fixture-entries';
import { startMonitoredProcess, type MonitoredProcess } from '../support/monitored-process';

/*
 * Every command of the request path carries its collection's whole shard
 * key (server/src/store/mongo/shard-plan.ts), so that on a sharded cluster
 * mongos sends it to the shards holding the answer, never to all of them.
 * The commands are captured from the driver of two processes built as main
 * builds them, while they serve Start Session, Operation A, Operation B
 * (a slice, a whole wallet, an offline creation), deliver their outboxes and
 * sweep. A command on a sharded collection without its key fails the test.
 * The one command that goes to every shard on purpose is the sweep's first
 * read of a run (whether any outbox of any bucket is past its grace: every
 * bucket named), once per run.
 */

jest.setTimeout(60_000);

const key = 'demo_secret_partner_app_0001';

/** What is wrong with one command, as mongos would target it; empty when it targets by the shard key. */
export function shardKeyProblems(event: CommandStartedEvent): string[] {
  const command = event.command;
  const collection = String(command[event.commandName]);
  const name = `${event.commandName} ${collection}`;
  const problems: string[] = [];
  const check = (target: string, filter: Document | undefined, what: string, equalityOnly = false) => {
    const shardKey = planOf(target)?.shardKey;
    if (!shardKey) return;
    const missing = missingKeyFields(shardKey, filter ?? {}, equalityOnly);
    if (missing.length > 0) problems.push(`${name}: ${what} on ${target} lacks ${missing.join(', ')} of its shard key ${JSON.stringify(shardKey)}`);
  };
  switch (event.commandName) {
    case 'find':
    case 'count':
    case 'distinct':
      check(collection, command.filter ?? command.query, 'filter');
      break;
    case 'findAndModify':
      check(collection, command.query, 'query', Boolean(command.upsert));
      break;
    case 'update':
      for (const update of command.updates as Document[]) check(collection, update.q, update.upsert ? 'upsert' : 'update', Boolean(update.upsert));
      break;
    case 'delete':
      for (const deletion of command.deletes as Document[]) check(collection, deletion.q, 'delete');
      break;
    case 'insert':
      for (const document of command.documents as Document[]) check(collection, document, 'document', true);
      break;
    case 'aggregate': {
      const [first, ...rest] = command.pipeline as Document[];
      check(collection, first?.$match, 'first $match');
      for (const stage of rest) {
        const lookup = stage.$lookup as Document | undefined;
        if (lookup) check(String(lookup.from), { [String(lookup.foreignField)]: 'looked up' }, '$lookup', true);
      }
      break;
    }
    default:
      break;
  }
  return problems;
}

/**
 * The fields of `shardKey` that `filter` does not pin, as mongos targets:
 * an upsert or an insert needs every field, each an equality; a query
 * needs the key's first field, an equality when it is hashed (a range of a
 * ranged field targets the chunks of that range), and each further field
 * it gives pinned the same way (the outbox sweep gives the wallets' bucket,
 * the key's first field, and so reaches the chunks of one bucket).
 */
function missingKeyFields(shardKey: ShardKey, filter: Document, wholeKey: boolean): string[] {
  const fields = Object.entries(shardKey);
  const pinned = ([field, kind]: [string, 1 | 'hashed']) => {
    if (!(field in filter)) return false;
    const value: unknown = filter[field];
    const isRange = typeof value === 'object' && value !== null && !(value instanceof Date) && Object.keys(value).some((k) => k.startsWith('$'));
    return !isRange || (!wholeKey && kind !== 'hashed');
  };
  const needed = wholeKey ? fields : fields.filter(([field], index) => index === 0 || field in filter);
  return needed.filter((entry) => !pinned(entry)).map(([field]) => field);
}

describe('the shard key check itself', () => {
  const event = (commandName: string, command: Document) => ({ commandName, command: { [commandName]: command.collection, ...command } }) as unknown as CommandStartedEvent;
  it.each<[string, CommandStartedEvent, number]>([
    ['a wallet by bucket and id', event('find', { collection: 'wallets', filter: { bucket: 3, _id: 'w' } }), 0],
    ['a wallet by id alone (goes to every shard)', event('find', { collection: 'wallets', filter: { _id: 'w' } }), 1],
    ['a new wallet with its whole key', event('insert', { collection: 'wallets', documents: [{ _id: 'w', bucket: 3 }] }), 0],
    ['a new wallet without its bucket', event('insert', { collection: 'wallets', documents: [{ _id: 'w' }] }), 1],
    ['a sweep query by bucket', event('aggregate', { collection: 'wallets', pipeline: [{ $match: { bucket: 3, 'outbox.at': { $lt: new Date() } } }] }), 0],
    ['a sweep query without bucket', event('aggregate', { collection: 'wallets', pipeline: [{ $match: { 'outbox.at': { $lt: new Date() } } }] }), 1],
    ['reservations by a range of _id (a ranged key)', event('find', { collection: 'reservations', filter: { _id: { $gte: 'a', $lt: 'b' } } }), 0],
    ['reservations by wallet', event('find', { collection: 'reservations', filter: { walletId: 'w' } }), 1],
    ['sessions by a range of a hashed key', event('find', { collection: 'sessions', filter: { _id: { $gt: 'a' } } }), 1],
    ['an upsert without its whole key', event('update', { collection: 'wallets', updates: [{ q: { _id: 'w' }, u: {}, upsert: true }] }), 1],
    ['a $lookup into members by another field', event('aggregate', { collection: 'clients', pipeline: [{ $match: { _id: 'c' } }, { $lookup: { from: 'members', localField: 'a', foreignField: 'householdId', as: 'x' } }] }), 1],
    ['an unsharded collection by anything', event('find', { collection: 'apiKeys', filter: { digest: 'd' } }), 0],
  ])('%s', (_case, command, problems) => {
    expect(shardKeyProblems(command)).toHaveLength(problems);
  });

  it('knows a plan for every collection the store has', () => {
    expect(shardPlan.map((p) => p.collection).sort()).toEqual(
      ['apiKeys', 'audit', 'catalogueItems', 'clients', 'endedSessions', 'members', 'meta', 'rateLimits', 'redemptions', 'reservations', 'sessionKeys', 'sessions', 'voucherDefinitions', 'wallets'],
    );
  });
});

describeOnMongoDB('request-path commands and their shard keys, two processes on one database', (uri) => {
  const dbName = uniqueDbName('shardkeys');
  let fleet: MonitoredProcess[];

  beforeAll(async () => {
    // All requests in one of the key's rate-limit windows (they are fixed: rate-limit/windows.ts).
    clockAtWindowStart(fixtureKeyId('partner-app', 0), rateLimitWindowMs);
    fleet = [await startMonitoredProcess(uri, dbName, 6000), await startMonitoredProcess(uri, dbName, 6000)];
    await fleet[0]!.store.ensureIndexes();
    await loadFixture(fleet[0]!.store, await readFixtureFile(demoFixturePath), new Date());
    // A reservation of m-alice that has expired: her wallet is then read and written whole.
    const expired = fixtureReservation('rt-alice-expired', 'm-alice', { 'm-alice': 100 }, { expiresAt: '2026-01-01T00:00:00Z' });
    await loadFixture(fleet[0]!.store, parseFixture({ reservations: [expired] }), new Date('2025-12-31T23:00:00Z'));
    for (const p of fleet) p.sent.length = 0;
  }, 60_000);

  afterAll(async () => {
    await Promise.all(fleet.map((p) => p.close()));
    await dropTestDatabase(uri, dbName);
    jest.useRealTimers();
  });

  const json = async (response: Promise<Response>) => {
    const answered = await response;
    return { status: answered.status, body: (await answered.json()) as Record<string, unknown> };
  };
  const session = (p: MonitoredProcess, member: string) =>
    json(fetch(`${p.base}/client/users/${member}/sessions`, { method: 'POST', headers: { 'x-api-key': key, 'x-identifier-type': 'CARD_NUMBER' } }));
  const put = (p: MonitoredProcess, token: string, member: string, reservation: string, body: unknown) =>
    json(
      fetch(`${p.base}/client/users/${member}/reservations/${reservation}`, {
        method: 'PUT',
        headers: { 'x-api-key': key, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );

  it('Start Session, A, B (slice, whole wallet, offline creation), sign-out, their outboxes and the sweep: every command targets by its shard key', async () => {
    for (const [i, p] of fleet.entries()) {
      const alice = String((await session(p, 'm-alice')).body.sessionToken);
      const household = String((await session(p, 'm-hh-1')).body.sessionToken);
      expect((await fetch(`${p.base}/client/users/m-alice/voucher-definitions`, { headers: { 'x-api-key': key, authorization: `Bearer ${alice}` } })).status).toBe(200);
      // m-alice's wallet holds an expired reservation: read and written whole.
      expect((await put(p, alice, 'm-alice', 'rt-alice-1', { reservationAmount: 9000 - i })).status).toBe(200);
      expect((await put(p, household, 'm-hh-1', 'rt-hh-1', { reservationAmount: 9000 - i })).status).toBe(200);
      expect((await put(p, household, 'm-hh-1', `rt-shard-${i}`, { reservationAmount: 10, offline: true })).status).toBe(200);
      const signOut = await fetch(`${p.base}/client/users/m-alice/sessions/current`, { method: 'DELETE', headers: { 'x-api-key': key, authorization: `Bearer ${alice}` } });
      expect(signOut.status).toBe(204);
      await p.store.outbox.settle();
    }
    const report = await fleet[1]!.store.outbox.start({}, { intervalMs: 3_600_000, graceMs: 0, batchSize: 10, maxBatches: 1 }).runOnce();
    expect(report.failed).toBe(0);

    const commands = fleet.flatMap((p) => p.sent.map((c) => c.event));
    const seen = new Set(commands.map((e) => `${e.commandName} ${String(e.command[e.commandName])}`));
    // The paths above were all taken: the wallets' slice and whole reads, the outbox, the sweep.
    for (const expected of ['aggregate wallets', 'update wallets', 'update reservations', 'insert audit', 'find reservations', 'find members', 'update endedSessions', 'aggregate sessionKeys']) {
      expect(seen).toContain(expected);
    }
    expect(commands.flatMap(shardKeyProblems)).toEqual([]);
    // The commands that name every bucket: the sweep's first read of each run (this one, and any run of a process's own timer).
    const everyBucket = commands.filter((e) => (e.command.filter as Document | undefined)?.bucket?.$in?.length === sweepBuckets);
    expect(everyBucket.length).toBeGreaterThanOrEqual(1);
    expect(everyBucket.filter((e) => e.commandName !== 'find' || e.command.comment !== sweepComment)).toEqual([]);
  });
});
