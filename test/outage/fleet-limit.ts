/**
 * The fleet-wide rate limit, as operators deploy it: two server processes on
 * the MongoDB of MONGODB_URI (a database of its own, dropped after), both at
 * RATE_LIMIT_PER_MINUTE (default 300), and twice that many Start Session
 * requests of one client key spread over both, twenty at a time, all within
 * one of the key's windows (the script waits for one to start when too
 * little of the current one is left). Exits 1 when more than the limit plus
 * 2 % get through, fewer than the limit less a block per process (the most
 * the processes can hold unspent), or anything but 201 and 429 comes back.
 * Prints the window's document: what the processes claimed, and how many
 * claimed. Run it with `MONGODB_URI=... npm run test:fleet-limit`; the
 * suite's fleet test (test/reliability/fleet.test.ts) checks the same
 * in-process.
 */
import { fixtureKeyId } from '../../server/src/domain/secrets';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { blockBounds } from '../../server/src/rate-limit/block-sizing';
import { windowWithRoom } from '../support/rate-limit-window';
import { rateLimitWindowMs, windowOf } from '../../server/src/rate-limit/windows';
import { collectionNames } from '../../server/src/store/mongo/collections';
import { windowDocumentKey } from '../../server/src/store/mongo/quota-claim';
import { dropTestDatabase } from '../../server/src/store/test-support/mongo-test-server';
import { fixtureClient, fixtureMember } from '../../server/src/test-support/fixture-entries';
import { send } from '../support/http';
import { startServerProcess } from './server-process';

const uri = process.env.MONGODB_URI?.trim() ?? '';
const limit = Number(process.env.RATE_LIMIT_PER_MINUTE ?? 300);
const apiKey = 'pk_fleet_limit_0001';
const clientId = 'fleet-app';
/** The id of the client's one key, whose requests the fleet counts. */
const keyId = fixtureKeyId(clientId, 0);
const windowMs = rateLimitWindowMs;

async function main(): Promise<void> {
  if (!uri) throw new Error('MONGODB_URI is required');
  const dbName = `fleet_limit_${process.pid}_${randomBytes(3).toString('hex')}`;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'loyalty-fleet-limit-'));
  const fixture = {
    clients: [fixtureClient(clientId, apiKey)],
    members: [fixtureMember('m-fleet', 1000)],
  };
  writeFileSync(path.join(tmp, 'fixture.json'), JSON.stringify(fixture));
  const env = { MONGODB_URI: uri, MONGODB_DB: dbName, RATE_LIMIT_PER_MINUTE: String(limit) };
  const servers: Array<Awaited<ReturnType<typeof startServerProcess>>> = [];
  try {
    // The first seeds the database; the second joins it as it is.
    servers.push(await startServerProcess({ ...env, SEED_FILE: path.join(tmp, 'fixture.json') }, path.join(tmp, 'first.log')));
    servers.push(await startServerProcess(env, path.join(tmp, 'second.log')));
    const byServer = servers.map(() => new Map<number, number>());
    await windowWithRoom(keyId, windowMs, 30_000);
    const window = windowOf(keyId, Date.now(), windowMs);
    const started = Date.now();
    for (let sent = 0; sent < 2 * limit; sent += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, 2 * limit - sent) }, async (_, i) => {
          const which = (sent + i) % servers.length;
          const res = await send(servers[which]!.url, {
            method: 'POST',
            path: '/client/users/m-fleet/sessions',
            headers: { 'x-api-key': apiKey, 'x-identifier-type': 'CARD_NUMBER' },
          });
          byServer[which]!.set(res.status, (byServer[which]!.get(res.status) ?? 0) + 1);
        }),
      );
    }
    const seconds = (Date.now() - started) / 1000;
    const total = (status: number) => byServer.reduce((sum, m) => sum + (m.get(status) ?? 0), 0);
    const other = byServer.flatMap((m) => [...m.entries()].filter(([status]) => status !== 201 && status !== 429));
    const stored = await windowDocument(dbName, windowDocumentKey(keyId, window));
    console.log(
      [
        `Two server processes (pids ${servers.map((s) => s.child.pid).join(', ')}) on one MongoDB, RATE_LIMIT_PER_MINUTE=${limit}:`,
        `  ${2 * limit} Start Session requests of one key in ${seconds.toFixed(1)} s: ${total(201)} accepted, ${total(429)} refused with 429`,
        ...byServer.map((m, i) => `  process ${i + 1}: ${JSON.stringify(Object.fromEntries(m))}`),
        `  the window's document: ${stored ? `${stored.claimed} claimed by ${stored.claimers} processes` : 'none'}`,
      ].join('\n'),
    );
    const most = Math.floor(limit * 1.02);
    const least = limit - servers.length * blockBounds(limit).max;
    if (total(201) > most || total(201) < least || other.length > 0) {
      console.log(`FAIL: ${total(201)} accepted (limit ${limit}: from ${least} to ${most}); other answers: ${JSON.stringify(other)}`);
      process.exitCode = 1;
    } else {
      console.log('PASS');
    }
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
    await Promise.all(servers.map((s) => new Promise((resolve) => (s.child.exitCode !== null ? resolve(null) : s.child.once('exit', resolve)))));
    await dropTestDatabase(uri, dbName);
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** What the processes claimed in the window, read from the window's document. */
async function windowDocument(dbName: string, key: string): Promise<{ claimed: number; claimers: number } | null> {
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
  try {
    const stored = await client.db(dbName).collection(collectionNames.rateLimits).findOne({ key });
    return stored ? { claimed: Number(stored.claimed), claimers: (stored.claimers as unknown[]).length } : null;
  } finally {
    await client.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
