import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MongoClient } from 'mongodb';
import { runAdmin } from '../../server/src/admin/cli';
import { exitCodes } from '../../server/src/admin/exit-codes';
import { demoFixturePath } from '../../server/src/features/load/read-fixture';
import { collectionNames } from '../../server/src/store/mongo/collections';
import { currentLayout } from '../../server/src/store/mongo/layout';
import { dropTestDatabase, describeOnMongoDB, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';
import { shardPlan } from '../../server/src/store/mongo/shard-plan';
import { layoutOneDatabase } from './data-layout/layout-one';
import { startTestApp } from '../../server/src/test-support/app-harness';
import { send } from '../../server/src/test-support/api-client';
import { wallClockFrom } from '../../server/src/test-support/time';

/** The indexes of one collection, with their options. */
async function indexesWithOptions(uri: string, dbName: string, collection: string) {
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
  try {
    return await client.db(dbName).collection(collection).listIndexes().toArray();
  } finally {
    await client.close();
  }
}

/** Every collection of the database with the keys of its indexes. */
async function indexesOf(uri: string, dbName: string): Promise<Record<string, unknown[]>> {
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
  try {
    const db = client.db(dbName);
    const names = (await db.listCollections().toArray()).map((c) => c.name).sort();
    return Object.fromEntries(await Promise.all(names.map(async (name) => [name, (await db.collection(name).listIndexes().toArray()).map((i) => i.key)])));
  } finally {
    await client.close();
  }
}

/** One command line of loyalty-admin, in this process: its exit code, stdout and stderr. */
async function admin(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const streams = {
    stdout: { write: (text: string) => ((stdout += text), true) },
    stderr: { write: (text: string) => ((stderr += text), true), isTTY: false },
  };
  const code = await runAdmin(args, env, streams);
  return { code, stdout, stderr };
}

/** Fixtures `load` refuses, each with the path its message names. */
const invalidFixtures: Array<[string, unknown, string]> = [
  ['a negative balance', { clients: [{ clientId: 'c', apiKey: 'demo_secret_valid_0001', enabledBusinessUnits: ['LCL'] }], members: [{ correlationId: 'm', pointBalance: -1 }] }, '/members/0/pointBalance: must be >= 0'],
  ['a session lifetime past a day', { clients: [{ clientId: 'c', apiKey: 'demo_secret_valid_0001', enabledBusinessUnits: ['LCL'], sessionTtlSeconds: 100_000 }] }, '/clients/0/sessionTtlSeconds: must be <= 86400'],
];

/** `fixture` written to a file of its own. */
function fixtureFile(fixture: unknown): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'admin-load-')), 'fixture.json');
  writeFileSync(file, JSON.stringify(fixture));
  return file;
}

// Some tests start servers on MongoDB (two, for log-hash): seconds on a busy machine.
jest.setTimeout(60_000);

/** What `keys create --json` prints for partner-app's new key: its secret once, after its prefix and id. */
function keyAsCreated(prefix: 'lsk' | 'lpk', kind: 'secret' | 'publishable', origins: string[], expiresAt: unknown) {
  return {
    clientId: 'partner-app',
    keyId: expect.stringMatching(/^key_[0-9a-f]{12}$/),
    apiKey: expect.stringMatching(new RegExp(`^${prefix}_[0-9a-f]{12}_[0-9A-Za-z]{49}$`)),
    kind,
    origins,
    createdAt: expect.any(String),
    expiresAt,
  };
}

const commands = [['keys', 'create'], ['keys', 'roll'], ['keys', 'revoke'], ['keys', 'list'], ['session-keys', 'roll'], ['session-keys', 'list'], ['load'], ['indexes'], ['check'], ['migrate'], ['shard'], ['log-hash']];

describe('loyalty-admin without MongoDB', () => {
  it.each(commands.map((words) => [words.join(' '), words] as const))('%s --help explains the command and exits 0', async (_name, words) => {
    const run = await admin([...words, '--help']);
    expect(run.code).toBe(exitCodes.ok);
    expect(run.stdout).toMatch(/^Usage: loyalty-admin /);
  });

  it('prints the shard plan without a database: every collection, sharded or not, its key and unique indexes', async () => {
    const run = await admin(['shard', '--json']);
    expect(run.code).toBe(exitCodes.ok);
    const plan = JSON.parse(run.stdout) as { applied: boolean; collections: Array<{ collection: string; sharded: boolean; shardKey: unknown; uniqueIndexes: unknown[] }> };
    expect(plan.applied).toBe(false);
    expect(plan.collections.find((c) => c.collection === 'wallets')).toMatchObject({ sharded: true, shardKey: { bucket: 1, _id: 1 } });
    expect(plan.collections.find((c) => c.collection === 'apiKeys')).toMatchObject({ sharded: false, shardKey: null, uniqueIndexes: [{ digest: 1 }] });
    expect(plan.collections).toHaveLength(shardPlan.length);
    // For people: one line per collection.
    expect((await admin(['shard'])).stdout.split('\n').filter((line) => /^ {2}\w/.test(line))).toHaveLength(shardPlan.length);
  });

  it('shard --apply needs MongoDB (a mongos), with exit code 2', async () => {
    const run = await admin(['shard', '--apply']);
    expect(run.code).toBe(exitCodes.usage);
    expect(run.stderr).toMatch(/set MONGODB_URI/);
  });

  it('says plainly that it needs MongoDB, with exit code 2', async () => {
    const run = await admin(['check']);
    expect(run.code).toBe(exitCodes.usage);
    expect(run.stderr).toMatch(/loyalty-admin works on a MongoDB database: set MONGODB_URI/);
  });

  it.each([
    ['an unknown command', ['rotate']],
    ['a missing required option', ['keys', 'create']],
    ['seconds that are not a whole number', ['keys', 'create', '--client', 'x', '--expires-in', '1.5']],
    ['an origin with a path', ['keys', 'create', '--client', 'x', '--publishable', '--origin', 'https://app.example.com/shop']],
    ['an origin in upper case', ['keys', 'create', '--client', 'x', '--publishable', '--origin', 'https://APP.example.com']],
    ['a publishable key without an origin', ['keys', 'create', '--client', 'x', '--publishable']],
    ['an origin for a secret key', ['keys', 'create', '--client', 'x', '--origin', 'https://app.example.com']],
  ])('refuses %s with exit code 2', async (_case, args) => {
    expect((await admin(args)).code).toBe(exitCodes.usage);
  });

  it.each(invalidFixtures)('load refuses a fixture with %s before it connects, naming its path, exit 1', async (_case, fixture, named) => {
    // Nothing listens on port 1: the file is read and checked first.
    const run = await admin(['load', fixtureFile(fixture)], { MONGODB_URI: 'mongodb://127.0.0.1:1/?directConnection=true', MONGODB_SERVER_SELECTION_TIMEOUT_MS: '200' });
    expect(run.code).toBe(exitCodes.failed);
    expect(run.stderr).toContain(named);
    expect(run.stderr).not.toMatch(/ECONNREFUSED|Cannot reach/);
  });

  it('is the bin of the server package, built by npm run admin', async () => {
    const repoRoot = path.resolve(__dirname, '../..');
    const { stdout } = await promisify(execFile)('npm', ['run', '-s', 'admin', '--', 'keys', '--help'], { cwd: repoRoot, timeout: 120_000 });
    expect(stdout).toMatch(/Usage: loyalty-admin keys/);
  }, 130_000);
});

describeOnMongoDB('loyalty-admin on MongoDB', (uri) => {
  let dbName: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    dbName = uniqueDbName('admin');
    env = { MONGODB_URI: uri, MONGODB_DB: dbName };
  });
  afterEach(() => dropTestDatabase(uri, dbName));

  const json = async (args: string[]) => {
    const run = await admin([...args, '--json'], env);
    return { ...run, body: JSON.parse(run.stdout) as Record<string, unknown> };
  };

  it('shard --apply on a server that is not a mongos: exit 2, saying why, and nothing changed', async () => {
    await json(['load', demoFixturePath]);
    const before = await indexesOf(uri, dbName);
    const run = await json(['shard', '--apply']);
    expect(run.code).toBe(exitCodes.usage);
    expect(run.body).toEqual({ error: expect.stringMatching(/not a mongos.*Nothing was changed/), exitCode: exitCodes.usage });
    expect(await indexesOf(uri, dbName)).toEqual(before);
  });

  it('AUDIT_RETENTION_DAYS: indexes makes the TTL index of the trail, changes it, drops it when unset; --verify and check see a difference', async () => {
    const ttl = async () => (await indexesWithOptions(uri, dbName, 'audit')).find((i) => JSON.stringify(i.key) === '{"at":1}')?.expireAfterSeconds;
    const run = async (days: string | null, args: string[]) => {
      env = { MONGODB_URI: uri, MONGODB_DB: dbName, ...(days && { AUDIT_RETENTION_DAYS: days }) };
      return json(args);
    };
    expect((await run('30', ['indexes'])).body).toMatchObject({ auditRetentionDays: 30, auditRetention: 'created' });
    expect(await ttl()).toBe(30 * 86_400);
    expect((await run('30', ['indexes', '--verify'])).code).toBe(exitCodes.ok);
    const differs = await run('60', ['indexes', '--verify']);
    expect(differs.code).toBe(exitCodes.failed);
    expect(differs.body).toMatchObject({ auditRetention: 'differs' });
    expect((await run('60', ['check'])).body).toMatchObject({ ok: false, problems: [expect.stringMatching(/keeps entries 30 days, AUDIT_RETENTION_DAYS says 60 days/)] });
    expect((await run('60', ['indexes'])).body).toMatchObject({ auditRetention: 'changed' });
    expect(await ttl()).toBe(60 * 86_400);
    expect((await run(null, ['indexes', '--verify'])).code).toBe(exitCodes.failed);
    expect((await run(null, ['indexes'])).body).toMatchObject({ auditRetentionDays: null, auditRetention: 'dropped' });
    expect(await ttl()).toBeUndefined();
    expect((await run(null, ['check'])).code).toBe(exitCodes.ok);
  });

  it("log-hash gives the hash that stands for a member in the access log of every server on the database", async () => {
    await admin(['load', demoFixturePath], env);
    const fleet = await startTestApp({ env: { ...env, PORT: '0', RATE_LIMIT_PER_MINUTE: '0', METRICS: 'off' }, instances: 2 });
    try {
      for (const url of fleet.urls) {
        await send(url, 'POST', '/client/users/m-alice/sessions', { apiKey: 'demo_secret_partner_app_0001', headers: { 'x-identifier-type': 'CARD_NUMBER' } });
      }
    } finally {
      await fleet.close();
    }
    const logged = fleet.logs.filter((line) => line.msg === 'request completed').map((line) => (line.req as { memberHash?: string }).memberHash);
    const run = await json(['log-hash', 'm-alice']);
    expect(run.code).toBe(exitCodes.ok);
    expect(run.body).toEqual({ correlationId: 'm-alice', memberHash: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(logged).toEqual([run.body.memberHash, run.body.memberHash]);
    expect((await json(['log-hash', 'm-bob'])).body.memberHash).not.toBe(run.body.memberHash);
  });

  it('loads a fixture, then checks the database: all well, exit 0', async () => {
    const load = await json(['load', demoFixturePath]);
    expect(load.code).toBe(exitCodes.ok);
    expect(load.body).toMatchObject({ file: demoFixturePath, loaded: { clients: 4, members: 8 }, membersMoved: 0, longestFenceMs: 0 });
    const check = await json(['check']);
    expect(check.code).toBe(exitCodes.ok);
    expect(check.body).toMatchObject({ ok: true, reachable: true, layout: { version: currentLayout, expected: currentLayout }, missingIndexes: [], counts: { clients: 4, apiKeys: 5 } });
  });

  it.each(invalidFixtures)('writes nothing for a fixture with %s, naming its path, exit 1', async (_case, fixture, named) => {
    const run = await admin(['load', fixtureFile(fixture)], env);
    expect(run.code).toBe(exitCodes.failed);
    expect(run.stderr).toContain(named);
    const client = await new MongoClient(uri).connect();
    try {
      expect(await client.db(dbName).collection(collectionNames.clients).countDocuments()).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('creates, rolls, lists and revokes keys; listings never show a secret', async () => {
    await admin(['load', demoFixturePath], env);
    const created = await json(['keys', 'create', '--client', 'partner-app', '--expires-in', '3600']);
    expect(created.code).toBe(exitCodes.ok);
    expect(created.body).toEqual(keyAsCreated('lsk', 'secret', [], expect.any(String)));
    const rolled = await json(['keys', 'roll', '--client', 'partner-app', '--grace', '60']);
    expect(rolled.code).toBe(exitCodes.ok);
    const listed = await json(['keys', 'list', '--client', 'partner-app']);
    const keys = listed.body.keys as Array<Record<string, unknown>>;
    expect(keys.map((k) => Object.keys(k).sort())).toEqual(keys.map(() => ['createdAt', 'expiresAt', 'keyId', 'kind', 'origins', 'revokedAt']));
    expect(keys.map((k) => k.keyId)).toContain(rolled.body.keyId);
    // The key's id may show (key_ and its digits), never what follows them.
    expect(String(created.body.apiKey).slice(4, 16)).toBe(String(created.body.keyId).slice(4));
    expect(rolled.body.apiKey).toMatch(/^lsk_/);
    for (const secret of [String(created.body.apiKey).slice(17), String(rolled.body.apiKey).slice(17), 'demo_secret_partner_app_0001', 'demo_publishable_partner_web_0001']) expect(listed.stdout).not.toContain(secret);
    const revoked = await json(['keys', 'revoke', '--client', 'partner-app', '--key', String(created.body.keyId)]);
    expect(revoked.body).toEqual({ keyId: created.body.keyId, revokedAt: expect.any(String) });
    // Nothing about a key's secret on stderr either.
    expect(revoked.stderr).toBe('');
  });

  it('rolls the session keys: the new one seals 5 s later, the one it replaces opens tokens a day after that; no secret is shown', async () => {
    const first = await json(['session-keys', 'list']);
    // A database a server gave its layout (empty) holds a first key, sealing at once.
    expect(first.body.keys).toEqual([{ kid: 'k0', createdAt: expect.any(String), signsFrom: new Date(0).toISOString(), verifiesUntil: null }]);
    // The roll's time: the wall clock stands still at this instant (timers stay real).
    const rolledAt = Date.now();
    wallClockFrom(rolledAt, { standingStill: true });
    const rolled = await json(['session-keys', 'roll']).finally(() => jest.useRealTimers());
    expect(rolled.code).toBe(exitCodes.ok);
    const signsFrom = Date.parse(String(rolled.body.signsFrom));
    expect(signsFrom).toBe(rolledAt + 5000);
    const keys = rolled.body.keys as Array<{ kid: string; signsFrom: string; verifiesUntil: string | null }>;
    expect(keys.map((k) => k.kid)).toEqual(['k0', rolled.body.rolled]);
    expect(Date.parse(keys[0]!.verifiesUntil!)).toBe(signsFrom + 86_400_000);
    expect(keys[1]!.verifiesUntil).toBeNull();
    expect(rolled.stdout).not.toMatch(/secret/i);
    const listed = await admin(['session-keys', 'list'], env);
    expect(listed.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('creates a publishable key for its origins, lists its kind and origins, rolls it keeping them, revokes it', async () => {
    await json(['load', demoFixturePath]);
    const origins = ['https://app.example.com', 'http://127.0.0.1:5173'];
    const created = await json(['keys', 'create', '--client', 'partner-app', '--publishable', ...origins.flatMap((origin) => ['--origin', origin])]);
    expect(created.code).toBe(exitCodes.ok);
    expect(created.body).toEqual(keyAsCreated('lpk', 'publishable', origins, null));
    const secret = await json(['keys', 'create', '--client', 'partner-app']);
    expect(secret.body).toMatchObject({ kind: 'secret', origins: [] });
    expect(secret.body.apiKey).toMatch(/^lsk_/);
    const rolled = await json(['keys', 'roll', '--client', 'partner-app', '--key', String(created.body.keyId), '--grace', '60']);
    expect(rolled.body).toMatchObject({ kind: 'publishable', origins, apiKey: expect.stringMatching(/^lpk_/) });
    const listed = (await json(['keys', 'list', '--client', 'partner-app'])).body.keys as Array<Record<string, unknown>>;
    const byId = new Map(listed.map((k) => [k.keyId, k]));
    expect(byId.get(created.body.keyId)).toMatchObject({ kind: 'publishable', origins, expiresAt: expect.any(String) });
    expect(byId.get(rolled.body.keyId)).toMatchObject({ kind: 'publishable', origins, expiresAt: null });
    expect(byId.get(secret.body.keyId)).toMatchObject({ kind: 'secret', origins: [], expiresAt: null });
    // For people: the kind and the origins on each line.
    const table = (await admin(['keys', 'list', '--client', 'partner-app'], env)).stdout;
    expect(table.split('\n').find((line) => line.startsWith(String(rolled.body.keyId)))).toMatch(/ publishable .* https:\/\/app\.example\.com http:\/\/127\.0\.0\.1:5173$/);
    const revoked = await json(['keys', 'revoke', '--client', 'partner-app', '--key', String(rolled.body.keyId)]);
    expect(revoked.body).toEqual({ keyId: rolled.body.keyId, revokedAt: expect.any(String) });
  });

  it.each([
    ['an unknown client', ['keys', 'list', '--client', 'nobody']],
    ['an unknown key', ['keys', 'revoke', '--client', 'partner-app', '--key', 'key_000000000000']],
  ])('answers %s with exit code 3', async (_case, args) => {
    await admin(['load', demoFixturePath], env);
    const run = await json(args);
    expect(run.code).toBe(exitCodes.notFound);
    expect(run.body).toEqual({ error: expect.any(String), exitCode: exitCodes.notFound });
  });

  it('finds a missing index with check and indexes --verify (exit 1), and indexes creates it', async () => {
    await admin(['load', demoFixturePath], env);
    const client = await new MongoClient(uri).connect();
    try {
      await client.db(dbName).collection(collectionNames.sessions).dropIndex('expiresAt_1');
    } finally {
      await client.close();
    }
    expect((await json(['check'])).body).toMatchObject({ ok: false, missingIndexes: ['sessions {"expiresAt":1}'] });
    expect((await admin(['indexes', '--verify'], env)).code).toBe(exitCodes.failed);
    expect((await admin(['indexes'], env)).code).toBe(exitCodes.ok);
    expect((await admin(['check'], env)).code).toBe(exitCodes.ok);
  });

  it('migrates a database of an earlier layout; check fails before and passes after', async () => {
    const client = await new MongoClient(uri).connect();
    try {
      await layoutOneDatabase(client.db(dbName));
    } finally {
      await client.close();
    }
    const before = await json(['check']);
    expect(before.code).toBe(exitCodes.failed);
    expect(before.body).toMatchObject({ ok: false, layout: { version: 1, expected: currentLayout, recorded: false } });
    // Keys need the current layout, like a server.
    expect((await admin(['keys', 'list', '--client', 'partner-app'], env)).stderr).toMatch(/Run `loyalty-admin migrate`/);
    const migrated = await json(['migrate']);
    expect(migrated.code).toBe(exitCodes.ok);
    expect(migrated.body).toMatchObject({ from: 1, to: currentLayout, steps: [{ to: 2 }, { to: 3 }, { to: 4 }, { to: 5 }] });
    expect((await json(['check'])).body).toMatchObject({ ok: true, layout: { version: currentLayout } });
  });
});
