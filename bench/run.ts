/**
 * `npm run bench [-- options]`: the server against a bare Express app that
 * answers the same routes with the same bytes, in one run. See README.md.
 *
 * Sections (all four by default):
 *   --ratio     Operations A and B, bare and server in alternating rounds
 *   --scale     Operation A with 2,000 vs 20,000 definitions
 *   --wallet    Operation B with 10 vs 1,000 live reservations per wallet
 *   --memory    RSS after the warm-up vs after 200,000 requests
 * Options:
 *   --node=26,24          Node.js lines to run the server and the bare app on, in one report
 *                         (default 26,24; the ratio section runs on each, the others on the first)
 *   --variant=NAME=PATH   another build of the server (PATH: its main.js) measured in the same
 *                         ratio rounds, compared with the server (repeatable; see README.md)
 *   --tracing             also the server with tracing on (OTLP/HTTP to a sink in this process),
 *                         measured as a variant named tracing-on
 *   --mongodb             the server on MONGODB_URI (database BENCH_MONGODB_DB, default loyalty_bench, dropped first)
 *   --rounds=N            measured rounds per operation and target (default 4)
 *   --duration=S          seconds per measured run (default 8)
 *   --warmup=S            seconds of warm-up per operation and target (default 10)
 *   --memory-requests=N   requests after the warm-up for --memory (default 200000)
 *   --only=A|B            measure one operation only (experiments)
 *   --profile=A|B         instead: CPU-profile the server under one operation and summarise it
 *   --profile-against=floor   compare the profile with the floor's instead of bare Express's
 *   --keep                keep the temporary directory (fixtures, logs)
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { CapturedResponse } from './bare-server';
import { generateFixture, type BenchPlan, type FixtureOptions } from './fixture';
import { connections, measure, operationA, operationB, sendOnce, startSessions, type Measurement, type Operation } from './load';
import { collectGarbage, countLines, repoRoot, rssOf, startBare, startServer, type Child } from './processes';
import { formatProfile, summariseProfile } from './profile-summary';
import { defaultLines, parseLines, resolveRuntime, type Runtime } from './runtimes';

// ---------------------------------------------------------------------------
// Options

type Section = 'ratio' | 'scale' | 'wallet' | 'memory';
const allSections: readonly Section[] = ['ratio', 'scale', 'wallet', 'memory'];

interface Options {
  sections: Set<Section>;
  mongodb: boolean;
  rounds: number;
  duration: number;
  warmup: number;
  memoryRequests: number;
  profile: 'A' | 'B' | null;
  /** The baseline the profile is compared with. */
  profileAgainst: 'bare' | 'floor';
  /** Measure only this operation (quicker experiments); both by default. */
  only: 'A' | 'B' | null;
  keep: boolean;
  /** Node.js lines, the first one also for the scale, wallet, memory and profile sections. */
  runtimes: number[];
  /** Other builds of the server, measured in the ratio rounds beside it. */
  variants: Variant[];
  /** The server with tracing on, as one more variant. */
  tracing: boolean;
}

interface Variant {
  name: string;
  /** The variant's `server/dist/main.js`; the repository's build when absent. */
  main?: string;
  env?: Record<string, string>;
}

function parseVariant(raw: string): Variant {
  const equals = raw.indexOf('=');
  const name = raw.slice(0, equals);
  const main = path.resolve(raw.slice(equals + 1));
  if (equals <= 0 || !/^[A-Za-z0-9_-]+$/.test(name) || !existsSync(main)) {
    throw new Error(`--variant takes NAME=PATH, PATH an existing main.js (got "${raw}")`);
  }
  return { name, main };
}

function parseOptions(argv: string[]): Options {
  const value = (name: string): string | undefined => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const number = (name: string, fallback: number): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const parsed = Number(raw);
    if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`--${name} must be a positive number`);
    return parsed;
  };
  const sections = new Set<Section>(allSections.filter((s) => argv.includes(`--${s}`)));
  if (sections.size === 0) for (const s of allSections) sections.add(s);
  const profile = value('profile');
  if (profile !== undefined && profile !== 'A' && profile !== 'B') throw new Error('--profile must be A or B');
  const profileAgainst = value('profile-against') ?? 'bare';
  if (profileAgainst !== 'bare' && profileAgainst !== 'floor') throw new Error('--profile-against must be bare or floor');
  const only = value('only');
  if (only !== undefined && only !== 'A' && only !== 'B') throw new Error('--only must be A or B');
  const known = /^--(ratio|scale|wallet|memory|mongodb|keep|tracing|(rounds|duration|warmup|memory-requests|profile|profile-against|only|node|variant)=.*)$/;
  const unknown = argv.filter((a) => !known.test(a));
  if (unknown.length > 0) throw new Error(`unknown option(s): ${unknown.join(' ')}`);
  return {
    sections,
    mongodb: argv.includes('--mongodb'),
    rounds: number('rounds', 4),
    duration: number('duration', 8),
    warmup: number('warmup', 10),
    memoryRequests: number('memory-requests', 200_000),
    profile: profile ?? null,
    profileAgainst,
    only: only ?? null,
    keep: argv.includes('--keep'),
    runtimes: parseLines(value('node') ?? defaultLines.join(',')),
    variants: argv.filter((a) => a.startsWith('--variant=')).map((a) => parseVariant(a.slice('--variant='.length))),
    tracing: argv.includes('--tracing'),
  };
}

// ---------------------------------------------------------------------------
// Set-up

/**
 * The server's default limit (config.ts), 6000 requests per minute and
 * client key, pinned here so that the bench does not follow a change of it. The fixture has enough client keys (100) for the load to stay below it
 * (up to 10,000 req/s spread evenly), so every request pays the limiter's full
 * cost and none is refused.
 */
const rateLimitPerMinute = 6000;
const clientKeys = 100;

/** Server throughput over bare Express's, per operation, on every runtime measured. */
const targets = { A: 1.0, B: 0.6 } as const;

/** Operation B's cost per request with 1,000 live reservations per wallet, at most this many times its cost with 10. */
const walletCostLimit = 2;

interface Env {
  options: Options;
  /** What the server and the bare app run on. */
  runtime: Runtime;
  tmp: string;
  mongo: { uri: string; dbName: (suffix: string) => string } | null;
}

async function prepareMongo(options: Options): Promise<Env['mongo']> {
  if (!options.mongodb) return null;
  const uri = process.env.MONGODB_URI?.trim();
  if (!uri) throw new Error('--mongodb needs MONGODB_URI');
  const base = process.env.BENCH_MONGODB_DB?.trim() || 'loyalty_bench';
  return { uri, dbName: (suffix) => (suffix ? `${base}_${suffix}` : base) };
}

/** Drops the bench's own database, so that every run starts from the fixture alone. */
async function dropDatabase(uri: string, dbName: string): Promise<void> {
  const { MongoClient } = await import('mongodb');
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
  try {
    await client.db(dbName).dropDatabase();
  } finally {
    await client.close();
  }
}

interface Deployment {
  server: Child;
  /** For `collectGarbage`; null when profiling (the profiler's hook takes the signal). */
  gcFile: string | null;
  plan: BenchPlan;
  a: Operation;
  b: Operation;
  /** The body Operation A answers (to compare listings across deployments). */
  listing: Buffer;
  captured: CapturedResponse[];
}

async function deploy(
  env: Env,
  name: string,
  fixtureOptions: Partial<FixtureOptions>,
  settings: { profileFile?: string; rateLimitPerMinute?: number; main?: string; env?: Record<string, string> } = {},
): Promise<Deployment> {
  const { profileFile } = settings;
  const started = Date.now();
  const { fixture, plan } = generateFixture({ clients: clientKeys, ...fixtureOptions });
  // Files of their own per runtime: a second runtime's server must not find the first one's.
  const files = path.join(env.tmp, `${name}.node${env.runtime.line}`);
  const seedFile = `${files}.fixture.json`;
  writeFileSync(seedFile, JSON.stringify(fixture));
  let mongo: { uri: string; dbName: string } | undefined;
  if (env.mongo) {
    mongo = { uri: env.mongo.uri, dbName: env.mongo.dbName(name === 'server' ? '' : name) };
    await dropDatabase(mongo.uri, mongo.dbName);
  }
  const gcFile = profileFile ? null : `${files}.gc`;
  const server = await startServer({
    name,
    seedFile,
    logFile: `${files}.log`,
    rateLimitPerMinute: settings.rateLimitPerMinute ?? rateLimitPerMinute,
    ...(mongo ? { mongo } : {}),
    ...(profileFile ? { profileFile } : {}),
    ...(gcFile ? { gcFile } : {}),
    ...(settings.main ? { main: settings.main } : {}),
    ...(settings.env ? { env: settings.env } : {}),
    execPath: env.runtime.execPath,
  });
  const seeded = Date.now();
  const tokens = await startSessions(server.url, plan);
  const a = operationA(plan, tokens);
  const b = operationB(plan, tokens);

  // One real response of each operation: checked here, replayed by the bare app.
  const listing = await sendOnce(server.url, a.next());
  const items = JSON.parse(listing.body.toString('utf8')) as unknown[];
  if (listing.status !== 200 || items.length !== plan.listed) {
    throw new Error(`${name}: Operation A answered ${listing.status} with ${items.length} items, expected 200 with ${plan.listed}`);
  }
  const update = await sendOnce(server.url, b.next());
  if (update.status !== 200) throw new Error(`${name}: Operation B answered ${update.status}: ${update.body.toString('utf8')}`);
  const capture = (method: 'get' | 'put', route: string, response: typeof listing): CapturedResponse => ({
    method,
    path: route,
    status: response.status,
    headers: response.headers,
    body: response.body.toString('base64'),
  });
  log(
    `${name}: ${fixture.voucherDefinitions.length} definitions, ${fixture.reservations.length} reservations, ` +
      `${plan.members.length} members, ${plan.clients.length} client keys; seeded and listening in ${((seeded - started) / 1000).toFixed(1)} s, ` +
      `${tokens.length} sessions in ${((Date.now() - seeded) / 1000).toFixed(1)} s; listing ${listing.body.length} bytes`,
  );
  return {
    server,
    gcFile,
    plan,
    a,
    b,
    listing: listing.body,
    captured: [
      capture('get', '/client/users/:correlation_id/voucher-definitions', listing),
      capture('put', '/client/users/:correlation_id/reservations/:reservation_token', update),
    ],
  };
}

// ---------------------------------------------------------------------------
// Sections

/** One measured process of a ratio round: the bare app, the server, or a variant of it. */
interface Target {
  name: string;
  child: Child;
  /** Where its operations come from (the bare app replays the server's). */
  deployment: Deployment;
}

/** Every target's runs of one operation. */
interface Runs {
  operation: 'A' | 'B';
  label: string;
  byTarget: Map<string, Measurement[]>;
}

interface RuntimeReport {
  node: string;
  ratio: Array<ReturnType<typeof summarisePair>>;
  variants: Array<ReturnType<typeof summariseVariant>>;
}

interface Report {
  machine: Record<string, unknown>;
  options: Omit<Options, 'sections'> & { sections: Section[] };
  runtimes?: RuntimeReport[];
  scale?: ReturnType<typeof summariseScale>;
  wallet?: ReturnType<typeof summariseWallet>;
  memory?: MemoryReport & { node: string };
  logLines?: { server: number; requestsSent: number };
}

interface MemoryReport {
  requests: number;
  afterWarmupMb: number;
  afterRequestsMb: number;
  peakMb: number;
  deltaMb: number;
  limitMb: number;
  pass: boolean;
  samplesMb: Array<[requests: number, rssMb: number]>;
}

const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** The operations to measure (both unless `--only`). */
function operationsOf(env: Env, deployment: Deployment): Operation[] {
  return [deployment.a, deployment.b].filter((op) => env.options.only === null || op.name === env.options.only);
}

async function warmUp(env: Env, targets: Target[]): Promise<number> {
  let requests = 0;
  for (const target of targets) {
    for (const operation of operationsOf(env, target.deployment)) {
      const result = await measure(target.child, operation, { duration: env.options.warmup });
      if (target.name === 'server') requests += result.requests;
    }
  }
  return requests;
}

/**
 * Rounds of every target on every operation, in an order that rotates each
 * round (bare first, then the server first, ...), so that drifting machine
 * load hits all alike.
 */
async function ratioRounds(
  env: Env,
  targets: Target[],
  rssSamples: Array<[number, number]>,
  /** Called after each of the server's runs with the requests it has had since the warm-up. */
  afterServerRun: (requests: number) => Promise<void>,
): Promise<{ runs: Runs[]; requests: number }> {
  const server = targets.find((t) => t.name === 'server')!;
  const runs: Runs[] = operationsOf(env, server.deployment).map((op) => ({
    operation: op.name,
    label: op.label,
    byTarget: new Map(targets.map((t) => [t.name, []])),
  }));
  let requests = 0;
  for (let round = 1; round <= env.options.rounds; round++) {
    const shift = (round - 1) % targets.length;
    const order = [...targets.slice(shift), ...targets.slice(0, shift)];
    for (const [index, { operation }] of runs.entries()) {
      for (const target of order) {
        const op = operationsOf(env, target.deployment).find((o) => o.name === operation)!;
        const result = await measure(target.child, op, { duration: env.options.duration });
        runs[index]!.byTarget.get(target.name)!.push(result);
        if (target === server) {
          requests += result.requests;
          rssSamples.push([requests, mb(rssOf(server.child.pid))]);
          await afterServerRun(requests);
        }
        log(`  round ${round} ${operation} ${target.name.padEnd(12)} ${fmt(result.rps, 0).padStart(7)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  failed ${result.failed}  cpu ${fmt(result.targetCpu)} (loader ${fmt(result.loaderCpu)}), ${fmt(cpuPerRequestUs(result), 0)} µs/request`);
      }
    }
  }
  return { runs, requests };
}

function total(list: Measurement[]) {
  const requests = list.reduce((sum, m) => sum + m.requests, 0);
  const seconds = list.reduce((sum, m) => sum + m.seconds, 0);
  return {
    rps: requests / seconds,
    p50: median(list.map((m) => m.p50)),
    p99: median(list.map((m) => m.p99)),
    failed: list.reduce((sum, m) => sum + m.failed, 0),
    requests,
  };
}

/** The server against bare Express (the target's baseline) and raw node:http, on one operation. */
function summarisePair(runs: Runs) {
  const summary = (name: string) => {
    const list = runs.byTarget.get(name)!;
    return { ...total(list), cpuUsPerRequest: median(list.map(cpuPerRequestUs)) };
  };
  const [bare, raw, floor, server] = [summary('bare'), summary('raw'), summary('floor'), summary('server')];
  const ratio = server.rps / bare.rps;
  const bareRuns = runs.byTarget.get('bare')!;
  const perRound = runs.byTarget.get('server')!.map((m, i) => m.rps / (bareRuns[i]?.rps ?? Number.NaN));
  const target = targets[runs.operation];
  return {
    operation: runs.operation,
    label: runs.label,
    bare,
    raw,
    floor,
    server,
    ratio,
    rawRatio: server.rps / raw.rps,
    /** The highest ratio any server doing the floor's work could reach here (floor-app.ts). */
    floorRatio: floor.rps / bare.rps,
    perRound,
    target,
    pass: ratio >= target && server.failed === 0,
  };
}

/**
 * A variant against the server, on one operation: throughput over the
 * server's (below 1: the variant is slower, so what it leaves out paid), and
 * CPU per request over the server's (above 1: the variant costs more).
 */
function summariseVariant(runs: Runs, name: string) {
  const serverRuns = runs.byTarget.get('server')!;
  const variantRuns = runs.byTarget.get(name)!;
  const cpu = (list: Measurement[]) => median(list.map(cpuPerRequestUs));
  const variant = { ...total(variantRuns), cpuUsPerRequest: cpu(variantRuns) };
  return {
    name,
    operation: runs.operation,
    variant,
    throughputRatio: variant.rps / total(serverRuns).rps,
    perRound: variantRuns.map((m, i) => m.rps / (serverRuns[i]?.rps ?? Number.NaN)),
    cpuRatio: variant.cpuUsPerRequest / cpu(serverRuns),
  };
}

function summariseScale(small: Measurement[], large: Measurement[], sameListing: boolean) {
  const s = total(small);
  const l = total(large);
  return { small: { definitions: 2000, ...s }, large: { definitions: 20000, ...l }, ratio: l.rps / s.rps, sameListing };
}

/**
 * Two deployments compared on one operation: a warm-up each, then rounds
 * (one fewer than --rounds, at least 2) in alternating order, so that the
 * machine's drifts hit both.
 */
async function alternatingRounds(
  env: Env,
  deployments: { small: Deployment; large: Deployment },
  operation: (d: Deployment) => Operation,
  label: (which: 'small' | 'large') => string,
): Promise<{ small: Measurement[]; large: Measurement[] }> {
  const { small, large } = deployments;
  for (const d of [small, large]) await measure(d.server, operation(d), { duration: env.options.warmup });
  const results: { small: Measurement[]; large: Measurement[] } = { small: [], large: [] };
  const rounds = Math.max(2, env.options.rounds - 1);
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? (['small', 'large'] as const) : (['large', 'small'] as const);
    for (const which of order) {
      const result = await measure(deployments[which].server, operation(deployments[which]), { duration: env.options.duration });
      results[which].push(result);
      log(`  round ${round} ${label(which)} ${fmt(result.rps, 0).padStart(7)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  failed ${result.failed}  ${fmt(cpuPerRequestUs(result), 0)} µs/request`);
    }
  }
  return results;
}

async function scaleSection(env: Env): Promise<ReturnType<typeof summariseScale>> {
  log('Scale: Operation A with 2,000 and with 20,000 definitions (same listed unit, same 100 items)');
  const common = { reservations: 2000, reservationsPerMember: 10 };
  const small = await deploy(env, 'scale2k', { ...common, definitions: 2000 });
  const large = await deploy(env, 'scale20k', { ...common, definitions: 20000 });
  try {
    const sameListing = small.listing.equals(large.listing);
    if (!sameListing) log('  WARNING: the two listings differ');
    const results = await alternatingRounds(env, { small, large }, (d) => d.a, (which) => `${which === 'small' ? ' 2,000' : '20,000'} definitions`);
    return summariseScale(results.small, results.large, sameListing);
  } finally {
    await Promise.all([small.server.stop(), large.server.stop()]);
  }
}

function summariseWallet(wallets: number, small: Measurement[], large: Measurement[]) {
  const s = total(small);
  const l = total(large);
  const cpu = (list: Measurement[]) => median(list.map(cpuPerRequestUs));
  // Cost per request at the same concurrency: the inverse of throughput.
  const costRatio = s.rps / l.rps;
  return {
    wallets,
    small: { reservationsPerWallet: walletSizes.small, cpuUsPerRequest: cpu(small), ...s },
    large: { reservationsPerWallet: walletSizes.large, cpuUsPerRequest: cpu(large), ...l },
    costRatio,
    cpuRatio: cpu(large) / cpu(small),
    limit: walletCostLimit,
    pass: costRatio <= walletCostLimit && s.failed === 0 && l.failed === 0,
  };
}

const walletSizes = { small: 10, large: 1000 } as const;

/**
 * Operation B on two deployments whose measured wallets differ only in how
 * many live reservations each holds (10 or 1,000, the default limit): one
 * member per client key, no households (a household wallet would hold both
 * partners' reservations), each request lowering a different reservation.
 * Both hold as many reservations in all (idle wallets make up the
 * difference), so that what differs is the size of the wallets changed,
 * not of the collections. With --mongodb, 20 wallets rather than 100 (a
 * MongoDB-compatible stand-in may scan where mongod uses an index); the
 * rate limit is raised for this section, still counting every request.
 */
async function walletSection(env: Env): Promise<ReturnType<typeof summariseWallet>> {
  const members = env.mongo ? 20 : clientKeys;
  const total = members * walletSizes.large;
  log(
    `Wallet size: Operation B with ${walletSizes.small} and with ${walletSizes.large} live reservations per wallet ` +
      `(${members} wallets changed; ${total.toLocaleString('en-US')} reservations in all in each deployment)`,
  );
  const deployments: Deployment[] = [];
  for (const [name, size] of [['wallet10', walletSizes.small], ['wallet1000', walletSizes.large]] as const) {
    const fixture = { clients: members, reservations: members * size, reservationsPerMember: size, householdEvery: 0, definitions: 200, idleReservations: total - members * size };
    deployments.push(await deploy(env, name, fixture, { rateLimitPerMinute: 1_000_000 }));
  }
  const [small, large] = deployments as [Deployment, Deployment];
  try {
    const results = await alternatingRounds(env, { small, large }, (d) => d.b, (which) => `${String(walletSizes[which]).padStart(5)} per wallet`);
    return summariseWallet(members, results.small, results.large);
  } finally {
    await Promise.all([small.server.stop(), large.server.stop()]);
  }
}

/**
 * RSS after full garbage collections and a second of rest: the two figures
 * the memory check compares are taken in the same state, not at whatever
 * point of a collection cycle the load left the heap (that alone moves RSS
 * by tens of MB; see the samples taken along the way, and gc-hook.ts).
 */
async function settledRss(deployment: Deployment): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  if (deployment.gcFile) await collectGarbage(deployment.server, deployment.gcFile);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return rssOf(deployment.server.pid);
}

/** The measured operations in turns (both unless --only) until --memory-requests have reached the server since the warm-up. */
async function memoryTopUp(env: Env, deployment: Deployment, sent: number, samples: Array<[number, number]>): Promise<number> {
  const chunk = 20_000;
  const operations = operationsOf(env, deployment);
  for (let turn = 0; sent < env.options.memoryRequests; turn++) {
    const op = operations[turn % operations.length]!;
    const amount = Math.max(connections, Math.min(chunk, env.options.memoryRequests - sent));
    const result = await measure(deployment.server, op, { amount });
    sent += result.requests;
    if (result.failed > 0) log(`  memory run: ${result.failed} failed requests (${JSON.stringify(result.statusCodes)})`);
    samples.push([sent, mb(rssOf(deployment.server.pid))]);
    log(`  ${sent} requests, RSS ${samples.at(-1)![1]} MB`);
  }
  return sent;
}

/**
 * CPU profiles of the server and of the bare app (or the floor) under the
 * same load (one operation), each summarised per request, then what the
 * server spends beyond it, by package and function.
 */
async function profileRun(env: Env, which: 'A' | 'B'): Promise<void> {
  const against = env.options.profileAgainst;
  const dir = path.join(repoRoot, 'bench', 'results', 'profiles');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const files = { server: path.join(dir, `${stamp}-${which}-server.cpuprofile`), bare: path.join(dir, `${stamp}-${which}-${against}.cpuprofile`) };
  const deployment = await deploy(env, 'server', {}, { profileFile: files.server });
  const bare = await startBare(deployment.captured, path.join(env.tmp, 'bare.json'), path.join(env.tmp, 'bare.log'), {
    profileFile: files.bare,
    execPath: env.runtime.execPath,
    kind: against === 'floor' ? 'floor' : 'express',
  });
  const requests = { server: 0, bare: 0 };
  try {
    const op = which === 'A' ? deployment.a : deployment.b;
    for (const [name, target] of [['server', deployment.server], ['bare', bare]] as const) {
      await measure(target, op, { duration: env.options.warmup });
      target.signal('SIGUSR2');
      const result = await measure(target, op, { duration: env.options.duration * 3 });
      target.signal('SIGUSR2');
      requests[name] = result.requests;
      await waitForFile(files[name]);
      log(`profiled ${op.label} on ${name === 'bare' ? against : name}: ${fmt(result.rps, 0)} req/s, ${fmt(cpuPerRequestUs(result), 0)} µs/request, failed ${result.failed}`);
    }
  } finally {
    await Promise.all([deployment.server.stop(), bare.stop()]);
  }
  const server = summariseProfile(files.server, 40);
  const baseline = summariseProfile(files.bare, 1000);
  const perRequest = (ms: number, n: number) => (ms * 1000) / Math.max(1, n);
  console.log(`\nServer: ${files.server}\n${formatProfile(server)}`);
  console.log(`\nCPU per request (profiled): server ${perRequest(server.totalMs, requests.server).toFixed(1)} µs, ${against} ${perRequest(baseline.totalMs, requests.bare).toFixed(1)} µs`);
  const diff = (list: 'byPackage' | 'byFunction') =>
    server[list].map((entry) => {
      const bareEntry = baseline[list].find((b) => b.name === entry.name);
      const serverUs = perRequest(entry.ms, requests.server);
      const bareUs = bareEntry ? perRequest(bareEntry.ms, requests.bare) : 0;
      return `  ${(serverUs - bareUs).toFixed(1).padStart(7)} µs  (server ${serverUs.toFixed(1)}, ${against} ${bareUs.toFixed(1)})  ${entry.name}`;
    });
  console.log(`\nPer request, server minus ${against}, by package:\n${diff('byPackage').join('\n')}`);
  console.log(`\nPer request, server minus ${against}, by function:\n${diff('byFunction').join('\n')}`);
}

async function waitForFile(file: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Written in one call; the pause above lets that call finish.
    if (existsSync(file)) return;
  }
  throw new Error(`profile ${file} was not written`);
}

// ---------------------------------------------------------------------------
// Output

function fmt(n: number, digits = 2): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** CPU time the target spent per request: steadier than req/s on a shared machine. */
function cpuPerRequestUs(m: Measurement): number {
  return m.requests === 0 ? 0 : (m.targetCpu * m.seconds * 1e6) / m.requests;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function log(message: string): void {
  console.error(message);
}

function printReport(report: Report): void {
  const lines: string[] = [];
  const row = (name: string, t: ReturnType<typeof total>) =>
    `  ${name.padEnd(22)} ${fmt(t.rps, 0).padStart(8)} ${String(t.p50).padStart(8)} ${String(t.p99).padStart(8)} ${String(t.failed).padStart(7)} ${String(t.requests).padStart(9)}`;
  const header = `  ${''.padEnd(22)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'failed'.padStart(7)} ${'requests'.padStart(9)}`;
  lines.push('', `=== Results (${report.options.mongodb ? 'MongoDB' : 'embedded store'}, ${connections} connections) ===`);
  for (const runtime of report.runtimes ?? []) {
    for (const r of runtime.ratio) {
      lines.push(
        '',
        `${r.label}, Node ${runtime.node}`,
        header,
        row('bare Express', r.bare),
        row('raw node:http', r.raw),
        row('floor', r.floor),
        row('server', r.server),
      );
      lines.push(
        `  ratio ${fmt(r.ratio)} of bare Express (target >= ${fmt(r.target)}, per round: ${r.perRound.map((x) => fmt(x)).join(' ')})  ${r.pass ? 'PASS' : 'FAIL'}; ${fmt(r.rawRatio)} of raw node:http`,
        `  floor: ${fmt(r.floorRatio)} of bare Express, the highest a server doing the floor's work reaches here (bench/floor-app.ts)${r.floorRatio < r.target ? '; below the target: out of reach on this machine' : ''}`,
        `  CPU per request: server ${fmt(r.server.cpuUsPerRequest, 0)} µs, floor ${fmt(r.floor.cpuUsPerRequest, 0)} µs, bare Express ${fmt(r.bare.cpuUsPerRequest, 0)} µs, raw node:http ${fmt(r.raw.cpuUsPerRequest, 0)} µs`,
      );
      for (const v of runtime.variants.filter((x) => x.operation === r.operation)) {
        lines.push(
          `  variant ${v.name}: ${fmt(v.variant.rps, 0)} req/s, throughput ${fmt(v.throughputRatio)} of the server's (per round: ${v.perRound.map((x) => fmt(x)).join(' ')}), ` +
            `CPU ${fmt(v.variant.cpuUsPerRequest, 0)} µs per request, ${fmt(v.cpuRatio)} of the server's, failed ${v.variant.failed}`,
        );
      }
    }
  }
  if (report.scale) {
    const s = report.scale;
    lines.push('', 'Scale, Operation A, same 100 listed items', header, row('2,000 definitions', s.small), row('20,000 definitions', s.large));
    lines.push(`  20,000 / 2,000 throughput: ${fmt(s.ratio)}; listings identical: ${s.sameListing ? 'yes' : 'NO'}`);
  }
  if (report.wallet) {
    const w = report.wallet;
    lines.push('', `Wallet size, Operation B, ${w.wallets} wallets changed`, header, row(`${w.small.reservationsPerWallet} per wallet`, w.small), row(`${w.large.reservationsPerWallet} per wallet`, w.large));
    lines.push(
      `  cost per request ${w.large.reservationsPerWallet} / ${w.small.reservationsPerWallet}: ${fmt(w.costRatio)} by throughput, ${fmt(w.cpuRatio)} by server CPU ` +
        `(${fmt(w.small.cpuUsPerRequest, 0)} -> ${fmt(w.large.cpuUsPerRequest, 0)} µs; limit ${fmt(w.limit)})  ${w.pass ? 'PASS' : 'FAIL'}`,
    );
  }
  if (report.memory) {
    const m = report.memory;
    lines.push(
      '',
      `Memory (Node ${m.node}): RSS after warm-up ${m.afterWarmupMb} MB, after ${m.requests.toLocaleString('en-US')} more requests ${m.afterRequestsMb} MB ` +
        `(delta ${m.deltaMb >= 0 ? '+' : ''}${m.deltaMb} MB, limit ${m.limitMb} MB, peak ${m.peakMb} MB)  ${m.pass ? 'PASS' : 'FAIL'}`,
      `  RSS along the way (requests: MB): ${m.samplesMb.map(([n, rss]) => `${n.toLocaleString('en-US')}: ${rss}`).join(', ')}`,
    );
  }
  if (report.logLines) lines.push('', `Access log: ${report.logLines.server} lines for ${report.logLines.requestsSent} requests sent to the server (logging on).`);
  lines.push('', `Machine: ${String(report.machine.cpus)} x ${String(report.machine.cpuModel)}, ${String(report.machine.memoryGb)} GB, ${String(report.machine.platform)}; load generator on Node ${String(report.machine.node)}`);
  console.log(lines.join('\n'));
}

// ---------------------------------------------------------------------------

/**
 * The server (and its variants) against the bare app on one runtime, with
 * the memory check on the first runtime when asked.
 */
async function runtimeSection(env: Env, withMemory: boolean, children: Child[], report: Report): Promise<void> {
  const { options, tmp } = env;
  const node = env.runtime.version;
  log(`Node ${node} (${env.runtime.execPath})`);
  const deployment = await deploy(env, 'server', {});
  children.push(deployment.server);
  const measured: Target[] = [{ name: 'server', child: deployment.server, deployment }];
  const withRatio = options.sections.has('ratio');
  const sink = withRatio && options.tracing ? await startTraceSink() : null;
  if (withRatio) {
    const bare = await startBare(deployment.captured, path.join(tmp, 'bare.json'), path.join(tmp, 'bare.log'), {
      execPath: env.runtime.execPath,
    });
    const raw = await startBare(deployment.captured, path.join(tmp, 'raw.json'), path.join(tmp, 'raw.log'), {
      execPath: env.runtime.execPath,
      kind: 'raw',
    });
    const floor = await startBare(deployment.captured, path.join(tmp, 'floor.json'), path.join(tmp, 'floor.log'), {
      execPath: env.runtime.execPath,
      kind: 'floor',
    });
    children.push(bare, raw, floor);
    measured.unshift({ name: 'bare', child: bare, deployment }, { name: 'raw', child: raw, deployment }, { name: 'floor', child: floor, deployment });
    for (const variant of variantsOf(options, sink)) {
      const variantDeployment = await deploy(env, `variant-${variant.name}`, {}, { ...(variant.main && { main: variant.main }), ...(variant.env && { env: variant.env }) });
      children.push(variantDeployment.server);
      measured.push({ name: variant.name, child: variantDeployment.server, deployment: variantDeployment });
    }
  }
  log('Warm-up');
  let sentTotal = 2 + (await warmUp(env, measured));
  const afterWarmup = await settledRss(deployment);
  log(`  server RSS after warm-up: ${mb(afterWarmup)} MB`);
  let sinceWarmup = 0;
  const samples: Array<[number, number]> = [[0, mb(afterWarmup)]];
  // The memory check's second reading: at the first pause between runs
  // once the requests since the warm-up reach --memory-requests (the
  // measured rounds count; a faster server gets there sooner, and the
  // embedded store's audit trail grows with every Operation B request).
  let checkpoint: { requests: number; rss: number } | undefined;
  const readAt = async (requests: number): Promise<void> => {
    if (!withMemory || checkpoint || requests < options.memoryRequests) return;
    checkpoint = { requests, rss: await settledRss(deployment) };
    log(`  memory reading after ${requests.toLocaleString('en-US')} requests: RSS ${mb(checkpoint.rss)} MB`);
  };
  if (withRatio) {
    log(`Measured rounds (${measured.map((t) => t.name).join(', ')}, the order rotating)`);
    const { runs, requests } = await ratioRounds(env, measured, samples, readAt);
    sinceWarmup += requests;
    const variants = variantsOf(options, sink).flatMap((variant) => runs.map((r) => summariseVariant(r, variant.name)));
    (report.runtimes ??= []).push({ node, ratio: runs.map(summarisePair), variants });
  }
  if (withMemory) {
    if (!checkpoint) {
      log(`Memory: topping up to ${options.memoryRequests.toLocaleString('en-US')} requests after the warm-up`);
      sinceWarmup = await memoryTopUp(env, deployment, sinceWarmup, samples);
      await readAt(sinceWarmup);
    }
    const after = checkpoint!;
    const peak = Math.max(...samples.map(([, rss]) => rss), mb(after.rss));
    report.memory = {
      node,
      requests: after.requests,
      afterWarmupMb: mb(afterWarmup),
      afterRequestsMb: mb(after.rss),
      peakMb: peak,
      deltaMb: Math.round((mb(after.rss) - mb(afterWarmup)) * 10) / 10,
      limitMb: 50,
      pass: after.rss - afterWarmup <= 50 * 1024 * 1024,
      samplesMb: samples,
    };
  }
  sentTotal += sinceWarmup;
  await Promise.all(measured.map((t) => t.child.stop()));
  await sink?.close();
  report.logLines ??= { server: countLines(deployment.server.logFile), requestsSent: sentTotal + deployment.plan.members.length };
}

/** The --variant builds, and with --tracing the server with tracing on, sending to `sink`. */
function variantsOf(options: Options, sink: TraceSink | null): Variant[] {
  const tracing = sink ? [{ name: 'tracing-on', env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'loyalty-api-bench' } }] : [];
  return [...options.variants, ...tracing];
}

interface TraceSink {
  url: string;
  /** Bytes of spans received (a check that tracing was on). */
  received: () => number;
  close(): Promise<void>;
}

/** An OTLP/HTTP receiver that accepts every export and keeps nothing but a byte count. */
async function startTraceSink(): Promise<TraceSink> {
  let received = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (received += chunk.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    close: async () => {
      log(`  trace sink received ${(received / 1024 / 1024).toFixed(1)} MB of spans`);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'loyalty-bench-'));
  const runtimes = options.runtimes.map(resolveRuntime);
  const primary = runtimes[0]!;
  const env: Env = { options, runtime: primary, tmp, mongo: await prepareMongo(options) };
  const children: Child[] = [];
  const cleanup = async (): Promise<void> => {
    await Promise.all(children.map((c) => c.stop()));
    if (!options.keep) rmSync(tmp, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));

  const cpus = os.cpus();
  const report: Report = {
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model.trim() ?? 'unknown',
      memoryGb: Math.round(os.totalmem() / 1024 ** 3),
      node: process.version,
      runtimes: runtimes.map((r) => r.version),
      platform: `${os.type()} ${os.release()} ${os.arch()}`,
      date: new Date().toISOString(),
    },
    options: { ...options, sections: [...options.sections] },
  };
  log(`Temporary files in ${tmp}${options.keep ? ' (kept)' : ''}; runtimes ${runtimes.map((r) => r.version).join(', ')}`);

  try {
    if (options.profile) {
      await profileRun(env, options.profile);
      return;
    }
    for (const [index, runtime] of runtimes.entries()) {
      const withMemory = index === 0 && options.sections.has('memory');
      if (options.sections.has('ratio') || withMemory) await runtimeSection({ ...env, runtime }, withMemory, children, report);
    }
    if (options.sections.has('scale')) report.scale = await scaleSection(env);
    if (options.sections.has('wallet')) report.wallet = await walletSection(env);
    printReport(report);
    const resultsDir = path.join(repoRoot, 'bench', 'results');
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(path.join(resultsDir, options.mongodb ? 'latest-mongodb.json' : 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
    const failed =
      (report.runtimes ?? []).some((r) => r.ratio.some((pair) => !pair.pass)) || report.memory?.pass === false || report.wallet?.pass === false;
    process.exitCode = failed ? 1 : 0;
  } finally {
    await cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
