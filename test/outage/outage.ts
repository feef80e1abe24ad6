/**
 * Outages: the server as operators run it (its own process, default
 * settings) on the MongoDB of MONGODB_URI, reached through a TCP proxy, under
 * steady traffic, while the database goes away and comes back several times.
 * Not part of `npm test` (it takes minutes); run it with
 * `MONGODB_URI=... npm run test:outage` (node + test/soak/register.cjs, no build).
 *
 * Each outage is one of (in turn, OUTAGE_MODES):
 *   cut    every connection reset and new ones refused (a stopped database)
 *   stall  connections kept open but nothing passed (a network dropping packets)
 *
 * Environment:
 *   MONGODB_URI         the database (one host); a database of its own is used and dropped
 *   OUTAGE_COUNT        outages (default 4)
 *   OUTAGE_SECONDS      how long each lasts (default 30)
 *   OUTAGE_MODES        comma-separated, used in turn (default cut,stall)
 *   OUTAGE_WORKERS      concurrent clients, one member each (default 8)
 *   OUTAGE_READY_LIMIT  seconds the server may take to be ready again (default 15)
 *
 * Exits 1 (and says why) on: a 5xx other than the documented 503, a 503
 * outside an outage and its recovery, a hang, a server not ready again
 * within the limit, a server process that exited or changed, a /healthz that
 * gave up during an outage shorter than its minute, traffic not back to
 * normal after an outage, a broken money rule or audit trail (read back
 * from the database), or a server that does not stop cleanly on SIGTERM.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { walletIdOf, type Wallet } from '../../server/src/domain/model';
import { collectionNames } from '../../server/src/store/mongo/collections';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { auditFromDoc, type AuditDoc } from '../../server/src/store/mongo/wallets/documents';
import { dropTestDatabase } from '../../server/src/store/test-support/mongo-test-server';
import { fixtureClient, fixtureMember } from '../../server/src/test-support/fixture-entries';
import { wallet } from '../../server/src/store/test-support/records';
import { serviceUnavailableBody } from '../support/answers';
import { HangError, send, type RawResponse } from '../support/http';
import { auditProblems, conservationProblems } from '../support/invariants';
import { startServerProcess } from './server-process';
import { singleMongoHost, startTcpProxy, throughProxy, type TcpProxy } from '../support/tcp-proxy';

const repoRoot = path.resolve(__dirname, '../..');
const uri = process.env.MONGODB_URI?.trim() ?? '';
const outages = Number(process.env.OUTAGE_COUNT ?? 4);
const outageSeconds = Number(process.env.OUTAGE_SECONDS ?? 30);
const modes = (process.env.OUTAGE_MODES ?? 'cut,stall').split(',').map((m) => m.trim()) as Array<'cut' | 'stall'>;
const workerCount = Number(process.env.OUTAGE_WORKERS ?? 8);
const readyLimitMs = Number(process.env.OUTAGE_READY_LIMIT ?? 15) * 1000;

const apiKey = 'pk_outage_app_0001';
const startingBalance = 1_000_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// --- bookkeeping ---------------------------------------------------------------

type Phase = 'steady' | 'outage' | 'recovery';
let phase: Phase = 'steady';
const counts = { steady: new Map<string, number>(), outage: new Map<string, number>(), recovery: new Map<string, number>() };
const problems: string[] = [];
let problemCount = 0;
const problem = (text: string) => {
  problemCount++;
  if (problems.length >= 50) return;
  problems.push(text);
  console.error(`PROBLEM ${text}`);
};
const count = (label: string) => counts[phase].set(label, (counts[phase].get(label) ?? 0) + 1);

const message = (res: RawResponse) => (res.json as { errorMessage?: string } | undefined)?.errorMessage;
/** A wallet at its limit of reservations (released ones count until they expire) refuses creations: documented, not a finding. */
const atLimit = (res: RawResponse) => res.status === 400 && message(res) === 'Too many active reservations';
/** A reservation that expired (while the database was away) is no longer known: documented, not a finding. */
const expired = (res: RawResponse) => res.status === 400 && message(res) === 'Reservation Token is invalid';

function judge(what: string, res: RawResponse): void {
  count(atLimit(res) ? '400 at the wallet limit' : expired(res) ? '400 expired' : String(res.status));
  if (res.status === 503) {
    if (JSON.stringify(res.json) !== JSON.stringify(serviceUnavailableBody)) problem(`${what}: a 503 with ${res.text.slice(0, 200)}`);
    if (res.headers['retry-after'] === undefined) problem(`${what}: a 503 without Retry-After`);
    if (phase === 'steady') problem(`${what}: a 503 with the database up`);
  } else if (res.status >= 500) {
    problem(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
  } else if (res.status >= 400 && !atLimit(res) && !expired(res)) {
    // The traffic is well-formed: anything else refused is a finding too.
    problem(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
  }
}

// --- the server ------------------------------------------------------------------

function fixture(members: string[]): unknown {
  const demo = JSON.parse(readFileSync(path.join(repoRoot, 'server/fixtures/example.json'), 'utf8')) as { voucherDefinitions: unknown[] };
  return {
    clients: [
      fixtureClient('outage-app', apiKey, {
        enabledBusinessUnits: ['LCL', 'SDM'],
        defaultBusinessUnit: 'LCL',
        sessionTtlSeconds: 86_400,
        // Short, so that released reservations expire during the run and wallets are cleaned up as they go.
        reservationDurationSeconds: 30,
        dailyRedemptionCap: null,
      }),
    ],
    members: members.map((correlationId) => fixtureMember(correlationId, startingBalance, { privileges: ['REDEEM'] })),
    voucherDefinitions: demo.voucherDefinitions,
  };
}

// --- traffic ---------------------------------------------------------------------

/** One member's requests in a loop: a session when it has none, then the listing, an offline creation and a lowering. */
async function worker(url: string, member: string, stop: { now: boolean }): Promise<void> {
  let token: string | null = null;
  let serial = 0;
  /** Reservations this worker holds, oldest first: each lowered to 40, then released (0). */
  const held: Array<{ token: string; amount: number }> = [];
  const call = async (what: string, method: string, route: string, body?: unknown): Promise<RawResponse | null> => {
    const headers: Record<string, string> = { 'x-api-key': apiKey, 'x-identifier-type': 'CARD_NUMBER' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const res = await send(url, { method, path: route, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }, 20_000);
      judge(what, res);
      return res;
    } catch (error) {
      count(error instanceof HangError ? 'hang' : 'transport error');
      if (error instanceof HangError) problem(`${what}: ${error.message}`);
      else if (phase === 'steady') problem(`${what}: ${String(error)}`);
      await sleep(200);
      return null;
    }
  };
  const base = `/client/users/${member}`;
  while (!stop.now) {
    if (!token) {
      const res = await call('start session', 'POST', `${base}/sessions`);
      if (res?.status === 201) token = (res.json as { sessionToken: string }).sessionToken;
      else await sleep(200);
      continue;
    }
    await call('list definitions', 'GET', `${base}/voucher-definitions`);
    const created = `rt-${member}-${serial++}`;
    const res = await call('create offline', 'PUT', `${base}/reservations/${created}`, { reservationAmount: 100, offline: true });
    if (res?.status === 200) held.push({ token: created, amount: 100 });
    // Two steps a round, as each reservation takes two (lower, release): the queue stays short.
    for (const next of held.splice(0, 2)) {
      const amount = next.amount === 100 ? 40 : 0;
      const low = await call(amount > 0 ? 'lower' : 'release', 'PUT', `${base}/reservations/${next.token}`, { reservationAmount: amount });
      // Not answered: sent again later (the same amount twice changes nothing the second time).
      if (low?.status === 200 && amount > 0) held.unshift({ token: next.token, amount });
      else if (low?.status !== 200 && !(low && expired(low))) held.unshift(next);
    }
  }
}

/** How long until two seconds of answers are all 2xx again (or documented refusals); -1 past `limitMs`. */
async function waitForCleanTraffic(limitMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    const before = new Map(counts.recovery);
    await sleep(2000);
    const failures = [...counts.recovery.entries()].filter(([status]) => !status.startsWith('2') && !status.startsWith('400 ')).reduce((sum, [status, n]) => sum + n - (before.get(status) ?? 0), 0);
    const successes = [...counts.recovery.entries()].filter(([status]) => status.startsWith('2')).reduce((sum, [status, n]) => sum + n - (before.get(status) ?? 0), 0);
    if (failures === 0 && successes > 0) return Date.now() - started;
  }
  return -1;
}

// --- main ------------------------------------------------------------------------

async function main(): Promise<void> {
  const target = singleMongoHost(uri);
  if (!target) throw new Error('MONGODB_URI must name one MongoDB host (mongodb://host:port/...)');
  const dbName = `outage_${process.pid}_${randomBytes(3).toString('hex')}`;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'loyalty-outage-'));
  const members = Array.from({ length: workerCount }, (_, i) => `m-outage-${String(i).padStart(2, '0')}`);
  writeFileSync(path.join(tmp, 'fixture.json'), JSON.stringify(fixture(members)));
  const proxy: TcpProxy = await startTcpProxy(target);
  const logFile = path.join(tmp, 'server.log');
  let server: { child: ChildProcess; url: string } | null = null;
  const report: string[] = [];
  try {
    // Default settings but the rate limit, which this one client key would pass (the limiter still counts every request).
    const env = { MONGODB_URI: throughProxy(uri, proxy), MONGODB_DB: dbName, SEED_FILE: path.join(tmp, 'fixture.json'), RATE_LIMIT_PER_MINUTE: '1000000' };
    server = await startServerProcess(env, logFile);
    const { child, url } = server;
    const pid = child.pid;
    console.error(`server pid ${pid} on ${url}, database ${dbName} through the proxy on port ${proxy.port}; log ${logFile}`);
    const stop = { now: false };
    const traffic = Promise.all(members.map((m) => worker(url, m, stop)));
    await sleep(10_000);

    for (let n = 1; n <= outages; n++) {
      const mode = modes[(n - 1) % modes.length]!;
      console.error(`outage ${n}/${outages}: ${mode} for ${outageSeconds} s`);
      phase = 'outage';
      if (mode === 'stall') proxy.stall();
      else await proxy.cut();
      const outageStarted = Date.now();
      let healthzDown = 0;
      let readyDuring = 0;
      while (Date.now() - outageStarted < outageSeconds * 1000) {
        const [health, ready] = await Promise.all([
          send(url, { method: 'GET', path: '/healthz' }, 5000).catch(() => null),
          send(url, { method: 'GET', path: '/readyz' }, 5000).catch(() => null),
        ]);
        if (health?.status !== 200) healthzDown++;
        if (ready?.status === 200) readyDuring++;
        await sleep(1000);
      }
      if (healthzDown > 0) problem(`outage ${n}: /healthz not 200 ${healthzDown} times during a ${outageSeconds} s outage (it gives up after a minute)`);

      await proxy.restore();
      phase = 'recovery';
      const restored = Date.now();
      let readyAfterMs = -1;
      while (Date.now() - restored < readyLimitMs + 5000) {
        const ready = await send(url, { method: 'GET', path: '/readyz' }, 5000).catch(() => null);
        if (ready?.status === 200) {
          readyAfterMs = Date.now() - restored;
          break;
        }
        await sleep(250);
      }
      if (readyAfterMs < 0 || readyAfterMs > readyLimitMs) problem(`outage ${n}: not ready within ${seconds(readyLimitMs)} of the database's return`);
      if (child.exitCode !== null || child.pid !== pid) problem(`outage ${n}: the server process is gone (exit ${child.exitCode})`);
      const cleanAfterMs = await waitForCleanTraffic(30_000);
      if (cleanAfterMs < 0) problem(`outage ${n}: traffic not back to all 2xx within 30 s of readiness`);
      const line =
        `outage ${n} (${mode}, ${outageSeconds} s): /readyz 200 ${readyAfterMs < 0 ? 'never' : `after ${seconds(readyAfterMs)}`} ` +
        `(200 ${readyDuring} times during it), traffic clean ${cleanAfterMs < 0 ? 'never' : `within ${seconds(cleanAfterMs + readyAfterMs)}`}, same pid ${child.pid === pid && child.exitCode === null ? 'yes' : 'NO'}`;
      console.error(line);
      report.push(line);
      phase = 'steady';
      await sleep(5000);
    }
    stop.now = true;
    await traffic;

    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const code = await Promise.race([exit, sleep(30_000).then(() => 'timeout' as const)]);
    if (code !== 0) problem(`the server did not stop cleanly on SIGTERM: ${String(code)}`);
    server = null;

    report.push(...(await conservation(dbName, members)));
  } finally {
    if (server) server.child.kill('SIGKILL');
    await proxy.close();
    await dropTestDatabase(uri, dbName).catch((error: unknown) => problem(`could not drop ${dbName}: ${String(error)}`));
    if (problemCount === 0) rmSync(tmp, { recursive: true, force: true });
  }

  console.log(['', '=== Outages ===', ...report, '', 'Answers by phase and status:', ...(['steady', 'outage', 'recovery'] as const).map((p) => `  ${p.padEnd(9)} ${JSON.stringify(Object.fromEntries([...counts[p].entries()].sort()))}`)].join('\n'));
  if (problemCount > 0) {
    console.log(`\nFAIL: ${problemCount} problem(s)${problemCount > problems.length ? `, the first ${problems.length}` : ''}:\n  ${problems.join('\n  ')}`);
    process.exitCode = 1;
  } else {
    console.log('\nPASS: no 500, every 503 documented, ready again within the limit after each outage, same process, points conserved');
  }
}

/**
 * The money rules on what the database holds once the server has stopped
 * (test/support/invariants.ts): balances unchanged, every
 * reservation funded by its contributions, nobody holding more than their
 * balance, and an audit trail that accounts for every change.
 */
async function conservation(dbName: string, members: string[]): Promise<string[]> {
  const store = await MongoStore.connect({ uri, dbName, serverSelectionTimeoutMS: 10_000 });
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
  try {
    const initial = new Map<string, Wallet>(members.map((m) => [walletIdOf(m, null), wallet(walletIdOf(m, null), { [m]: startingBalance })]));
    const wallets = new Map<string, Wallet | null>();
    for (const walletId of initial.keys()) wallets.set(walletId, await store.loadWallet(walletId));
    const audit = (await client.db(dbName).collection<AuditDoc>(collectionNames.audit).find().toArray()).map(auditFromDoc);
    for (const text of conservationProblems({ wallets, initial, now: new Date(), caps: {} })) problem(text);
    const trail = auditProblems(wallets, initial, audit);
    for (const text of trail.problems) problem(text);
    const held = [...wallets.values()].reduce((n, w) => n + (w?.reservations.length ?? 0), 0);
    return [
      `points: ${members.length} wallets, ${held} reservations stored (released ones stay until they expire); the audit trail's ${trail.entries} entries account for ` +
        `${trail.reserved} points reserved and ${trail.returned} returned (read back from the database)`,
    ];
  } finally {
    await store.close();
    await client.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
