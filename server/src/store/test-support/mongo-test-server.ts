import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { MongoStore, type MongoStoreOptions } from '../mongo/mongo-store';

/**
 * The MongoDB tests run against: the server `MONGODB_URI` names (a CI
 * service, a local mongod or docker container, or a wire-protocol stand-in).
 * Without it, MongoDB tests are skipped with this reason. Every test that
 * writes uses a database of its own and drops it.
 */
export type TestMongoSource = { kind: 'uri'; uri: string } | { kind: 'none'; reason: string };

const noMongoReason = 'no MongoDB: set MONGODB_URI to run the MongoDB variants';

/** Decided synchronously, so a test file can choose between its suite and a skip while jest collects tests. */
export function testMongoSource(env: NodeJS.ProcessEnv = process.env): TestMongoSource {
  const uri = env.MONGODB_URI?.trim();
  return uri ? { kind: 'uri', uri } : { kind: 'none', reason: noMongoReason };
}

/**
 * `describe(title, () => suite(uri))` on the test MongoDB; without one, a
 * single skipped test whose title says why, so a green run never hides
 * that the MongoDB suite did not run.
 */
export function describeOnMongoDB(title: string, suite: (uri: string) => void): void {
  const source = testMongoSource();
  if (source.kind === 'none') it.skip(`${title}: skipped, ${source.reason}`, () => undefined);
  else describe(title, () => suite(source.uri));
}

/**
 * A database name no other test file (or concurrent run) uses. MongoDB
 * allows 63 characters without `/\. "$`.
 */
export function uniqueDbName(label: string): string {
  const safe = label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 30);
  return `test_${safe}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** Drops a test database through a short-lived client of its own. */
export async function dropTestDatabase(uri: string, dbName: string): Promise<void> {
  const admin = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
  try {
    await admin.db(dbName).dropDatabase();
  } finally {
    await admin.close();
  }
}

export interface TestMongoStore {
  store: MongoStore;
  uri: string;
  dbName: string;
  /** Closes the store and drops its database. */
  cleanup(): Promise<void>;
}

/** A MongoStore on a fresh database of its own (named after `label`) on the test MongoDB. */
export async function connectTestStore(uri: string, label: string, options: Partial<MongoStoreOptions> = {}): Promise<TestMongoStore> {
  const dbName = uniqueDbName(label);
  const store = await MongoStore.connect({ uri, dbName, serverSelectionTimeoutMS: 10_000, ...options });
  return {
    store,
    uri,
    dbName,
    cleanup: async () => {
      await store.close();
      await dropTestDatabase(uri, dbName);
    },
  };
}

/** What the MongoDB behind a URI can do, as far as some tests need to know. */
export interface MongoServerFeatures {
  /** Null when it explains query plans; otherwise why a test that needs them is skipped. */
  explainMissing: string | null;
}

/**
 * Asks the server itself (not an environment flag) whether it has the
 * `explain` command: real mongod has it, mongo-wire (a wire-protocol
 * imitation for machines without mongod) answers "no such command".
 * Synchronous, in a child process, so that a test file can decide between a
 * test and a skip while jest collects its tests.
 */
export function probeMongoServerFeatures(uri: string): MongoServerFeatures {
  const script = `
    const { MongoClient } = require('mongodb');
    (async () => {
      const client = await new MongoClient(process.env.PROBE_URI, { serverSelectionTimeoutMS: 10000 }).connect();
      try {
        await client.db('test_feature_probe').command({ explain: { find: 'probe', filter: {} }, verbosity: 'queryPlanner' });
        console.log(JSON.stringify({ explainMissing: null }));
      } catch (error) {
        const missing = error.code === 59 || /no such command/i.test(error.message);
        if (!missing) throw error;
        console.log(JSON.stringify({ explainMissing: 'the MongoDB at MONGODB_URI has no explain command (query plans need a real mongod, as in the GitHub workflow)' }));
      } finally {
        // Asking may create the database on some servers: leave nothing behind.
        await client.db('test_feature_probe').dropDatabase().catch(() => undefined);
        await client.close();
      }
    })().catch((error) => { console.error(error.message); process.exit(1); });`;
  const result = spawnSync(process.execPath, ['-e', script], {
    cwd: __dirname,
    env: { ...process.env, PROBE_URI: uri },
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (result.status !== 0) throw new Error(`could not ask the MongoDB at MONGODB_URI what it supports: ${result.stderr || result.error?.message}`);
  return JSON.parse(result.stdout) as MongoServerFeatures;
}

/** Why the tests of query plans cannot run on `source` (null: they can). */
export function explainMissing(source: TestMongoSource): string | null {
  return source.kind === 'none' ? source.reason : probeMongoServerFeatures(source.uri).explainMissing;
}

/** Every `stage` named in an explain() plan, at any depth (IXSCAN, FETCH, SORT, COLLSCAN...). */
export function stageNames(plan: unknown): string[] {
  if (plan === null || typeof plan !== 'object') return [];
  const own = 'stage' in plan && typeof plan.stage === 'string' ? [plan.stage] : [];
  return [...own, ...Object.values(plan).flatMap(stageNames)];
}
