/**
 * Deployments (the server, alone or as a fleet, with its fixture and
 * sessions), the baselines, and one measured run: a fixed offered load and
 * what it cost the processes that served it.
 */
import { writeFileSync } from 'node:fs';
import express from 'express';
import path from 'node:path';
import type { CapturedResponse } from './bare-server';
import { generateFixture, type BenchPlan, type FixtureOptions } from './fixture';
import { paced, send, type LoadResult } from './loader';
import { cpuSecondsOf, metricsOf, startBare, startServer, type Child, type ServerMetrics } from './processes';
import type { Runtime } from './runtimes';
import {
  flood,
  forgedTokens,
  membersChangingWallets,
  operationA,
  operationAPaced,
  operationB,
  operationBFresh,
  signOut,
  startOne,
  startSession,
  startSessionAgain,
  startSessions,
  type Scenario,
  type ScenarioName,
  type StartOn,
} from './scenarios';

export interface Env {
  runtime: Runtime;
  tmp: string;
  /** The MongoDB of `--mongodb`; `created` collects the databases the run made (dropped at its end). */
  mongo: { uri: string; dbName: (suffix: string) => string; created: Set<string> } | null;
  /** The database's process when it runs on this machine (its CPU is reported beside the server's). */
  databasePid: number | null;
  /** Requests offered per second. */
  rate: number;
}

/**
 * The server's default limit (config.ts), 6000 requests per minute and client
 * key, pinned here so that the bench does not follow a change of it.
 */
export const rateLimitPerMinute = 6000;

/**
 * The client keys of a fixture for a load of `rate` requests a second: a
 * few partner apps, as a programme has, and enough of them that the load,
 * cycling through them, gives each at most half the limit (no member's
 * request is refused; only the flooding key goes past it): 4 at 100
 * requests a second, 20 at 1,000.
 */
export function clientKeysFor(rate: number): number {
  return Math.max(4, Math.ceil((rate * 60) / (rateLimitPerMinute / 2)));
}

/** Commands of the driver's and the server's own checks, not of any request. */
const monitoringCommands = new Set(['ping', 'hello']);
const writeCommands = new Set(['insert', 'update', 'delete', 'findAndModify', 'bulkWrite']);

/** A set of processes answering one load: the server (one, or a fleet of two), another build of it (`--compare`), or a baseline. */
export interface Target {
  name: 'server' | 'other' | 'bare' | 'raw';
  processes: Child[];
}

export interface Deployment {
  name: string;
  server: Target;
  /** `BENCH_GC_FILE` of each server process (collectGarbage), absent when profiling. */
  gcFiles: string[];
  plan: BenchPlan;
  /** A scenario's requests, made on first use and then continued. */
  scenario(name: ScenarioName): Scenario;
  /** One real answer of each route, replayed by the baselines. */
  captured: CapturedResponse[];
  /** Operation A's body (to compare listings across deployments). */
  listing: Buffer;
  /** Whether the server tags Operation A's answer (ETag): A-304 needs it (a build before it does not). */
  conditional: boolean;
  /** Whether the server signs a session out (`DELETE .../sessions/current`: 204): sign-out needs it (a build before it does not). */
  signsOut: boolean;
  /** The deployment's database on MongoDB (the driver's loop runs against it); null on the embedded store. */
  database: { uri: string; dbName: string } | null;
  /** Stops the processes and, on MongoDB, drops the database (an in-memory stand-in would keep it until it stops). */
  retire(): Promise<void>;
}

export async function dropDatabase(uri: string, dbName: string): Promise<void> {
  const { MongoClient } = await import('mongodb');
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
  try {
    await client.db(dbName).dropDatabase();
  } finally {
    await client.close();
  }
}

/**
 * The server on a fixture of its own: `processes` of them on one database
 * (the first loads the fixture, the others start on what it loaded), then a
 * session per member, then one checked answer of each route.
 */
export async function deploy(
  env: Env,
  name: string,
  fixtureOptions: Partial<FixtureOptions>,
  { processes = 1, profileFile, main }: { processes?: number; profileFile?: string; main?: string } = {},
): Promise<Deployment> {
  const started = Date.now();
  const { fixture, plan } = generateFixture({ clients: clientKeysFor(env.rate), ...fixtureOptions });
  const files = path.join(env.tmp, `${name}.node${env.runtime.line}`);
  const seedFile = `${files}.fixture.json`;
  writeFileSync(seedFile, JSON.stringify(fixture));
  let mongo: { uri: string; dbName: string } | undefined;
  if (env.mongo) {
    mongo = { uri: env.mongo.uri, dbName: env.mongo.dbName(name === 'server' ? '' : name) };
    await dropDatabase(mongo.uri, mongo.dbName);
    env.mongo.created.add(mongo.dbName);
  }
  const children: Child[] = [];
  const gcFiles: string[] = [];
  for (let n = 1; n <= processes; n++) {
    const gcFile = profileFile ? undefined : `${files}.${n}.gc`;
    if (gcFile) gcFiles.push(gcFile);
    children.push(
      await startServer({
        name: processes > 1 ? `${name}-${n}` : name,
        ...(n === 1 && { seedFile }),
        logFile: `${files}.${n}.log`,
        rateLimitPerMinute,
        ...(mongo && { mongo }),
        ...(profileFile && n === 1 && { profileFile }),
        ...(gcFile && { gcFile }),
        execPath: env.runtime.execPath,
        ...(main && { main }),
      }),
    );
  }
  const seeded = Date.now();
  const tokens = await startSessions(children[0]!.url, plan);
  // Set once the listing is known (below): the tags each client holds, the server's and bare Express's.
  let heldTags: string[] = [];
  const startOn: StartOn = (via, correlationId, apiKey) => startOne(children[via % children.length]!.url, correlationId, apiKey);
  const makers: Record<ScenarioName, () => Scenario> = {
    session: () => startSession(plan),
    'session-again': () => startSessionAgain(plan),
    A: () => operationA(plan, tokens),
    'A-304': () => operationA(plan, tokens, heldTags),
    'A-paced': () => operationAPaced(plan, env.rate, startOn),
    B: () => operationB(plan, tokens, 'one'),
    'B-shared': () => operationB(plan, tokens, 'alternate', membersChangingWallets),
    'B-fresh': () => operationBFresh(plan, startOn),
    forged: () => forgedTokens(plan, tokens),
    'sign-out': () => signOut(plan, startOn),
    flood: () => flood(plan),
  };
  const made = new Map<ScenarioName, Scenario>();
  const scenario = (which: ScenarioName): Scenario => made.get(which) ?? made.set(which, makers[which]()).get(which)!;
  const url = children[0]!.url;
  const session = await send(url, scenario('session').next());
  const listing = await send(url, scenario('A').next());
  const update = await send(url, scenario('B').next());
  const items = listing.status === 200 ? (JSON.parse(listing.body.toString('utf8')) as unknown[]) : [];
  if (session.status !== 201) throw new Error(`${name}: Start Session answered ${session.status}: ${session.body.toString('utf8')}`);
  if (listing.status !== 200 || items.length !== plan.listed) {
    throw new Error(`${name}: Operation A answered ${listing.status} with ${items.length} items, expected 200 with ${plan.listed}`);
  }
  if (update.status !== 200) throw new Error(`${name}: Operation B answered ${update.status}: ${update.body.toString('utf8')}`);
  const conditional = listing.headers.etag !== undefined;
  let notModified: Awaited<ReturnType<typeof send>> | null = null;
  if (conditional) {
    heldTags = (await serverTags(url, plan, tokens)).map((tag) => `${tag}, ${expressTagOf(listing.body)}`);
    notModified = await send(url, scenario('A-304').next());
    if (notModified.status !== 304) throw new Error(`${name}: Operation A with If-None-Match answered ${notModified.status}, expected 304`);
  }
  const signsOut = await endsASession(url, plan);
  const capture = (method: CapturedResponse['method'], route: string, response: typeof listing): CapturedResponse => ({
    method,
    path: route,
    status: response.status,
    headers: response.headers,
    body: response.body.toString('base64'),
  });
  log(
    `${name}: ${processes} process${processes > 1 ? 'es' : ''}, ${fixture.voucherDefinitions.length} definitions, ${fixture.reservations.length} reservations, ` +
      `${plan.members.length} members, ${plan.clients.length} client keys; seeded and listening in ${secondsSince(started)} s, ` +
      `${tokens.length} sessions in ${secondsSince(seeded)} s; listing ${listing.body.length} bytes`,
  );
  return {
    name,
    server: { name: 'server', processes: children },
    gcFiles,
    plan,
    scenario,
    listing: listing.body,
    conditional,
    signsOut,
    database: mongo ?? null,
    retire: async () => {
      await Promise.all(children.map((child) => child.stop()));
      if (mongo) await dropDatabase(mongo.uri, mongo.dbName);
    },
    captured: [
      capture('post', '/client/users/:correlation_id/sessions', session),
      { ...capture('get', '/client/users/:correlation_id/voucher-definitions', listing), ...(notModified && { notModified: { headers: notModified.headers } }) },
      capture('put', '/client/users/:correlation_id/reservations/:reservation_token', update),
    ],
  };
}

/** Whether the server at `url` ends a session it has just started (204); a build before sign-out answers 404. */
async function endsASession(url: string, plan: BenchPlan): Promise<boolean> {
  const member = plan.members[0]!;
  const apiKey = plan.clients[member.client]!.apiKey;
  const token = await startOne(url, member.correlationId, apiKey);
  const ended = await send(url, {
    method: 'DELETE',
    path: `/client/users/${member.correlationId}/sessions/current`,
    headers: { 'x-api-key': apiKey, authorization: `Bearer ${token}` },
    via: 0,
  });
  return ended.status === 204;
}

/** The ETag the server gives the measured listing of each client (tags differ by client), from a member of it. */
async function serverTags(url: string, plan: BenchPlan, tokens: string[]): Promise<string[]> {
  return Promise.all(
    plan.clients.map(async (client, c) => {
      const index = plan.members.findIndex((member) => member.client === c);
      const member = plan.members[index]!;
      const answer = await send(url, {
        method: 'GET',
        path: `/client/users/${member.correlationId}/voucher-definitions?businessUnit=${plan.businessUnit}`,
        headers: { 'x-api-key': client.apiKey, authorization: `Bearer ${tokens[index]}` },
        via: 0,
      });
      const tag = answer.headers.etag;
      if (answer.status !== 200 || !tag) throw new Error(`Operation A for ${client.clientId} answered ${answer.status} without an ETag`);
      return tag;
    }),
  );
}

/** The ETag bare Express gives `body` (its default: weak, of the bytes), which its conditional GET compares. */
function expressTagOf(body: Buffer): string {
  const tagOf = express().get('etag fn') as (body: Buffer) => string;
  return tagOf(body);
}

/** A baseline, as many processes as the server has, answering the server's captured bytes. */
export async function startBaseline(env: Env, deployment: Deployment, kind: 'express' | 'raw'): Promise<Target> {
  const processes: Child[] = [];
  for (let n = 1; n <= deployment.server.processes.length; n++) {
    const file = path.join(env.tmp, `${kind}-${n}`);
    processes.push(await startBare(deployment.captured, `${file}.json`, `${file}.log`, { execPath: env.runtime.execPath, kind }));
  }
  return { name: kind === 'express' ? 'bare' : 'raw', processes };
}

/** One measured run: the load, and what its processes spent on it. */
export interface Run {
  load: LoadResult;
  /** CPU seconds of the target's processes, from the first request to a moment after the last answer. */
  cpuSeconds: number;
  /** CPU seconds of the load generator (this process). */
  loaderCpuSeconds: number;
  /** CPU seconds of the database's process in the same time (server runs on a local database only). */
  databaseCpuSeconds: number | null;
  /** MongoDB commands the target's processes sent, by `command collection`, all but the outbox sweep's (null: not counted). */
  commands: Map<string, number> | null;
  /**
   * The outbox sweep's commands in the same time (every process, every
   * 30 s ± 6 s: whichever run they fall in, the work is the changes' that
   * left outboxes to clear; the report counts them to those scenarios).
   * Null when not counted; empty for a build that does not count them
   * apart (its sweep's are then in `commands`).
   */
  sweepCommands: Map<string, number> | null;
  /** Where a server's latency went (null for the baselines): see `latencyOf`. */
  latency: Latency | null;
}

/**
 * Whether a server's answers waited on its own process or on the store: the
 * event loop's 99th percentile delay (the largest over the processes), and
 * the bound under which 99 % of the store calls of the run finished (a
 * bucket of `loyalty_store_operation_duration_seconds`), in milliseconds.
 */
export interface Latency {
  eventLoopDelayP99Ms: number | null;
  storeCallP99Ms: number | null;
}

/** After the last answer, work the answers started (B's copies) still counts. */
const settleMs = 500;

export async function measureRun(env: Env, target: Target, scenario: Scenario, seconds: number): Promise<Run> {
  await scenario.prepare?.(Math.round(env.rate * seconds));
  const counted = target.name === 'server' || target.name === 'other';
  const metricsBefore = counted ? await metricsOfAll(target) : null;
  const cpu = () => target.processes.reduce((sum, child) => sum + cpuSecondsOf(child.pid), 0);
  const database = counted && env.databasePid !== null ? env.databasePid : null;
  const databaseBefore = database === null ? 0 : cpuSecondsOf(database);
  const cpuBefore = cpu();
  const loaderBefore = process.cpuUsage();
  const load = await paced(
    target.processes.map((child) => child.url),
    () => scenario.next(),
    { rate: env.rate, seconds, status: scenario.status },
  );
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  const cpuSeconds = cpu() - cpuBefore;
  const databaseCpuSeconds = database === null ? null : cpuSecondsOf(database) - databaseBefore;
  const loader = process.cpuUsage(loaderBefore);
  const metricsAfter = counted ? await metricsOfAll(target) : null;
  const allCounted = (metrics: ServerMetrics[] | null) => metrics !== null && metrics.every((m) => m.commands !== null);
  const sent = (which: (m: ServerMetrics) => Map<string, number>) => difference(sumOf(metricsAfter!.map(which)), sumOf(metricsBefore!.map(which)));
  const counts = allCounted(metricsBefore) && allCounted(metricsAfter) ? { all: sent((m) => m.commands!), sweep: sent((m) => m.sweepCommands) } : null;
  return {
    load,
    cpuSeconds,
    loaderCpuSeconds: (loader.user + loader.system) / 1e6,
    databaseCpuSeconds,
    commands: counts && difference(counts.all, counts.sweep),
    sweepCommands: counts && counts.sweep,
    latency: metricsBefore && metricsAfter ? latencyOf(metricsBefore, metricsAfter) : null,
  };
}

async function metricsOfAll(target: Target): Promise<ServerMetrics[]> {
  return Promise.all(target.processes.map((child) => metricsOf(child)));
}

function sumOf(maps: Map<string, number>[]): Map<string, number> {
  const total = new Map<string, number>();
  for (const map of maps) for (const [key, n] of map) total.set(key, (total.get(key) ?? 0) + n);
  return total;
}

/** The run's latency breakdown from the metrics read before and after it (the event loop's delay was reset by the first read). */
function latencyOf(before: ServerMetrics[], after: ServerMetrics[]): Latency {
  const delays = after.map((m) => m.eventLoopDelayP99).filter((d): d is number => d !== null);
  const calls = new Map<number, number>();
  after.forEach((m, i) => {
    for (const [bound, n] of m.storeCalls) calls.set(bound, (calls.get(bound) ?? 0) + n - (before[i]!.storeCalls.get(bound) ?? 0));
  });
  const bounds = [...calls.keys()].sort((a, b) => a - b);
  const total = calls.get(Number.POSITIVE_INFINITY) ?? 0;
  const p99 = total === 0 ? undefined : bounds.find((bound) => calls.get(bound)! >= 0.99 * total);
  return {
    eventLoopDelayP99Ms: delays.length === 0 ? null : Math.max(...delays) * 1000,
    storeCallP99Ms: p99 === undefined ? null : p99 * 1000,
  };
}

/** What two builds spent on one paired run (`pairedRun`), CPU microseconds per answer each. */
export interface PairedRun {
  load: LoadResult;
  usPerRequest: [number, number];
}

/**
 * Two builds at once, each answering every other request of one load (half
 * the rate each), each with its own scenario's requests: the machine's drifts
 * hit both in the same moment, so their CPU per request compares closely.
 */
export async function pairedRun(env: Env, pair: [[Target, Scenario], [Target, Scenario]], seconds: number): Promise<PairedRun> {
  const [[first, firstScenario], [second, secondScenario]] = pair;
  await firstScenario.prepare?.(Math.round((env.rate * seconds) / 2));
  await secondScenario.prepare?.(Math.round((env.rate * seconds) / 2));
  const cpu = (target: Target) => target.processes.reduce((sum, child) => sum + cpuSecondsOf(child.pid), 0);
  const before = [cpu(first), cpu(second)];
  const urls = [...first.processes, ...second.processes].map((child) => child.url);
  const n = first.processes.length;
  let i = 0;
  const load = await paced(
    urls,
    () => {
      const request = i++ % 2 === 0 ? firstScenario.next() : { ...secondScenario.next() };
      return { ...request, via: i % 2 === 1 ? request.via % n : n + (request.via % second.processes.length) };
    },
    { rate: env.rate, seconds, status: firstScenario.status },
  );
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  const half = Math.max(1, load.responses / 2);
  return { load, usPerRequest: [((cpu(first) - before[0]!) * 1e6) / half, ((cpu(second) - before[1]!) * 1e6) / half] };
}

function difference(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [key, n] of after) if (n - (before.get(key) ?? 0) > 0) delta.set(key, n - (before.get(key) ?? 0));
  return delta;
}

/** Runs of one target on one scenario, summed. */
export interface Summary {
  offered: number;
  answered: number;
  responses: number;
  statuses: Record<string, number>;
  cpuUsPerRequest: number;
  /** The local database's CPU per request, when known. */
  databaseCpuUsPerRequest: number | null;
  /** Medians of the runs' percentiles. */
  p50: number;
  p99: number;
  /** Requests (commands, writes) per answer: null when not counted. */
  commandsPerRequest: number | null;
  writesPerRequest: number | null;
  /** Commands per answer by `command collection`, the most first. */
  byCommand: Array<[string, number]>;
  /** The outbox sweep's commands during the runs, in all (not per answer), by `command collection`, the most first: left out of the figures above. */
  sweepCommands: Array<[string, number]>;
  /** Medians of the runs' latency breakdowns (see `Latency`); null when not read. */
  latency: Latency | null;
}

export function summarise(runs: Run[]): Summary {
  const sum = (f: (run: Run) => number) => runs.reduce((total, run) => total + f(run), 0);
  const responses = sum((r) => r.load.responses);
  const statuses: Record<string, number> = {};
  for (const run of runs) for (const [status, n] of Object.entries(run.load.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  const counted = runs.every((r) => r.commands !== null);
  const commands = new Map<string, number>();
  const sweep = new Map<string, number>();
  if (counted) {
    for (const run of runs) for (const [key, n] of run.commands!) if (!monitoringCommands.has(key.split(' ')[0]!)) commands.set(key, (commands.get(key) ?? 0) + n);
    for (const run of runs) for (const [key, n] of run.sweepCommands!) sweep.set(key, (sweep.get(key) ?? 0) + n);
  }
  const per = (n: number) => (responses === 0 ? 0 : n / responses);
  const all = [...commands.values()].reduce((total, n) => total + n, 0);
  const writes = [...commands].filter(([key]) => writeCommands.has(key.split(' ')[0]!)).reduce((total, [, n]) => total + n, 0);
  return {
    offered: sum((r) => r.load.offered),
    answered: sum((r) => r.load.answered),
    responses,
    statuses,
    cpuUsPerRequest: per(sum((r) => r.cpuSeconds)) * 1e6,
    databaseCpuUsPerRequest: runs.every((r) => r.databaseCpuSeconds !== null) ? per(sum((r) => r.databaseCpuSeconds!)) * 1e6 : null,
    p50: median(runs.map((r) => r.load.p50)),
    p99: median(runs.map((r) => r.load.p99)),
    commandsPerRequest: counted ? per(all) : null,
    writesPerRequest: counted ? per(writes) : null,
    byCommand: [...commands].map(([key, n]): [string, number] => [key, per(n)]).sort((a, b) => b[1] - a[1]),
    sweepCommands: [...sweep].sort((a, b) => b[1] - a[1]),
    latency: runs.every((r) => r.latency)
      ? {
          eventLoopDelayP99Ms: medianOrNull(runs.map((r) => r.latency!.eventLoopDelayP99Ms)),
          storeCallP99Ms: medianOrNull(runs.map((r) => r.latency!.storeCallP99Ms)),
        }
      : null,
  };
}

function medianOrNull(values: Array<number | null>): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : median(known);
}

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function describeRun(label: string, run: Run): string {
  const { load } = run;
  const perRequest = load.responses === 0 ? 0 : (run.cpuSeconds * 1e6) / load.responses;
  const commands = run.commands ? [...run.commands].filter(([key]) => !monitoringCommands.has(key.split(' ')[0]!)).reduce((t, [, n]) => t + n, 0) : null;
  const swept = run.sweepCommands ? [...run.sweepCommands.values()].reduce((t, n) => t + n, 0) : 0;
  return (
    `  ${label}: ${load.answered}/${load.offered} answered` +
    `${load.answered === load.offered ? '' : ` ${JSON.stringify(load.statuses)}`}, p50 ${load.p50.toFixed(1)} ms, p99 ${load.p99.toFixed(1)} ms, ` +
    `${Math.round(perRequest)} µs CPU/request (${(run.cpuSeconds / load.seconds).toFixed(2)} cores; loader ${(run.loaderCpuSeconds / load.seconds).toFixed(2)}` +
    `${run.databaseCpuSeconds === null ? '' : `; database ${(run.databaseCpuSeconds / load.seconds).toFixed(2)}`})` +
    (commands === null ? '' : `, ${(commands / Math.max(1, load.responses)).toFixed(2)} commands/request`) +
    (swept === 0 ? '' : ` (and the outbox sweep's ${swept})`)
  );
}

export function log(message: string): void {
  console.error(message);
}

function secondsSince(start: number): string {
  return ((Date.now() - start) / 1000).toFixed(1);
}
