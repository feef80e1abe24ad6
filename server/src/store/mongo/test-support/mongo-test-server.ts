import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Where tests find a MongoDB, in this order:
 * 1. `MONGODB_URI`: a server someone runs (CI service, local docker);
 * 2. a `mongod` binary (`MONGOMS_SYSTEM_BINARY`, or `mongod` on PATH),
 *    started by mongodb-memory-server for the test file.
 * Nothing is ever downloaded: without either, MongoDB tests are skipped.
 */
export type TestMongoSource =
  | { kind: 'uri'; uri: string }
  | { kind: 'binary'; binary: string }
  | { kind: 'none'; reason: string };

export interface TestMongo {
  uri: string;
  stop: () => Promise<void>;
}

const noMongoReason =
  'no MongoDB reachable: set MONGODB_URI, or MONGOMS_SYSTEM_BINARY / put mongod on PATH';

/** Decided synchronously, so a test file can choose between its suite and a skip while jest collects tests. */
export function testMongoSource(env: NodeJS.ProcessEnv = process.env): TestMongoSource {
  const uri = env.MONGODB_URI?.trim();
  if (uri) return { kind: 'uri', uri };
  const binary = env.MONGOMS_SYSTEM_BINARY?.trim() || findOnPath('mongod', env.PATH ?? '');
  if (binary) return { kind: 'binary', binary };
  return { kind: 'none', reason: noMongoReason };
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

/** Why the tests of query plans cannot run on `source` (null: they can). A mongod started here always has explain. */
export function explainMissing(source: TestMongoSource): string | null {
  if (source.kind === 'none') return source.reason;
  return source.kind === 'uri' ? probeMongoServerFeatures(source.uri).explainMissing : null;
}

/** A MongoDB for tests, or null when there is none (see testMongoSource). */
export async function startTestMongo(): Promise<TestMongo | null> {
  const source = testMongoSource();
  if (source.kind === 'none') return null;
  // Someone else's server: nothing to stop; each test file uses (and drops) its own database.
  if (source.kind === 'uri') return { uri: source.uri, stop: async () => undefined };

  // Loaded only here, so files that never start a server do not load it.
  const { MongoMemoryServer } = await import('mongodb-memory-server-core');
  const version = mongodVersion(source.binary);
  const server = await MongoMemoryServer.create({
    // The version is passed only to silence the library's "version conflict" warning.
    binary: { systemBinary: source.binary, ...(version && { version }) },
  });
  return {
    uri: server.getUri(),
    stop: async () => {
      await server.stop({ doCleanup: true });
    },
  };
}

/**
 * A database name no other test file (or concurrent run) uses. MongoDB
 * allows 63 characters without `/\. "$`.
 */
export function uniqueDbName(label: string): string {
  const safe = label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 30);
  return `test_${safe}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

function findOnPath(command: string, searchPath: string): string | undefined {
  const names = process.platform === 'win32' ? [`${command}.exe`] : [command];
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** "db version v7.0.14" -> "7.0.14"; undefined when the binary does not say. */
function mongodVersion(binary: string): string | undefined {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return /db version v?(\d+\.\d+\.\d+)/.exec(result.stdout ?? '')?.[1];
}

/** Every `stage` named in an explain() plan, at any depth (IXSCAN, FETCH, SORT, COLLSCAN...). */
export function stageNames(plan: unknown): string[] {
  if (plan === null || typeof plan !== 'object') return [];
  const own = 'stage' in plan && typeof plan.stage === 'string' ? [plan.stage] : [];
  return [...own, ...Object.values(plan).flatMap(stageNames)];
}
