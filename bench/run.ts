/**
 * `npm run bench [-- options]`: the server at a fixed offered load, against
 * bare Express and raw node:http answering the same bytes at the same load,
 * in one run. See README.md.
 *
 * Sections (all three by default):
 *   --operations   Start Session, Operation A, Operation B (each wallet changed by one process,
 *                  then by both in turn), forged tokens, sign-out, a flood from one key past its
 *                  limit; on MongoDB also Start Session again, A paced as members' pages call,
 *                  B with fresh sessions; the memory check
 *   --scale        Operation A with 2,000 vs 20,000 definitions
 *   --wallet       Operation B with 10 vs 1,000 live reservations per wallet
 * Options:
 *   --mongodb          on MONGODB_URI, a fleet of two server processes on one database
 *                      (BENCH_MONGODB_DB, default loyalty_bench, dropped first)
 *   --rate=N           requests offered per second (default 100 on MongoDB, 1000 on the embedded store)
 *   --rounds=N         measured rounds (default 3)
 *   --duration=S       seconds per measured run (default 8)
 *   --warmup=S         seconds of warm-up per scenario and target (default 5)
 *   --node=26,24       Node.js lines to measure the operations on (default 26; scale and wallet on the first)
 *   --only=A,B         scenarios of the operations section: session, session-again (MongoDB), A, A-304,
 *                      A-paced (a fleet), B, B-shared (a fleet), B-fresh (MongoDB), forged, sign-out, flood
 *                      (default all)
 *   --profile=A        instead: CPU profiles of one server process and of bare Express under one
 *                      scenario (session, A, A-304 or B), compared per request
 *   --keep             keep the temporary directory (fixtures, logs)
 *   --compare=PATH     the operations on another build too (its server/dist/main.js), as a target of
 *                      the same rounds: before and after a change, under the same drifts
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeConnections, send } from './loader';
import { deploy, describeRun, dropDatabase, log, measureRun, pairedRun, rateLimitPerMinute, startBaseline, summarise, type Deployment, type Env, type Run, type Target } from './measure';
import type { DriverCosts } from './driver-cost';
import { collectGarbage, listenerPid, measureDriverCosts, repoRoot, rssOf, startBare, type Child } from './processes';
import { formatProfile, summariseProfile } from './profile-summary';
import {
  checksOf,
  comparisonTargetsOf,
  conditionalTargetsOf,
  embeddedTargetsOf,
  floorOf,
  printReport,
  sweepShareOf,
  targetsOf,
  walletCheck,
  type Comparison,
  type DriverCostReport,
  type PairReport,
  type Report,
  type RuntimeReport,
  type ScenarioReport,
} from './report';
import { defaultLines, parseLines, resolveRuntime } from './runtimes';
import type { FixtureOptions } from './fixture';
import type { ScenarioName } from './scenarios';

// ---------------------------------------------------------------------------
// Options

type Section = 'operations' | 'scale' | 'wallet';
const allSections: readonly Section[] = ['operations', 'scale', 'wallet'];
const allScenarios: readonly ScenarioName[] = ['session', 'session-again', 'A', 'A-304', 'A-paced', 'B', 'B-shared', 'B-fresh', 'forged', 'sign-out', 'flood'];
/** The scenarios measured against the baselines too (the others share a route with one of them, or answer what no baseline does). */
const withBaselines = new Set<ScenarioName>(['session', 'A', 'A-304', 'B']);
/** The scenarios answered on another's route: its baseline is theirs (their floor's bare Express). */
const routeOf: Partial<Record<ScenarioName, ScenarioName>> = { 'session-again': 'session', 'A-paced': 'A', 'B-shared': 'B', 'B-fresh': 'B' };
/**
 * The scenarios whose warm-up uses every member's session twice (the steady
 * state of a process that has seen the sessions it serves); the others make
 * what they use (their sessions, their members' reads) in their own time.
 */
const longWarmup = new Set<ScenarioName>(['session', 'A', 'A-304', 'B', 'B-shared']);

interface Options {
  sections: Set<Section>;
  mongodb: boolean;
  rate: number;
  rounds: number;
  duration: number;
  warmup: number;
  runtimes: number[];
  only: ScenarioName[];
  profile: ScenarioName | null;
  keep: boolean;
  /** Another build's `server/dist/main.js`, measured beside this one in the same rounds. */
  compare: string | null;
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
  const known = /^--(operations|scale|wallet|mongodb|keep|(rate|rounds|duration|warmup|node|only|profile|compare)=.*)$/;
  const unknown = argv.filter((a) => !known.test(a));
  if (unknown.length > 0) throw new Error(`unknown option(s): ${unknown.join(' ')}`);
  const sections = new Set<Section>(allSections.filter((s) => argv.includes(`--${s}`)));
  if (sections.size === 0) for (const s of allSections) sections.add(s);
  const only = (value('only')?.split(',') ?? [...allScenarios]) as ScenarioName[];
  if (only.some((s) => !allScenarios.includes(s))) throw new Error(`--only takes a comma-separated list of ${allScenarios.join(', ')}`);
  const profile = value('profile') as ScenarioName | undefined;
  if (profile !== undefined && !withBaselines.has(profile)) throw new Error(`--profile must be one of ${[...withBaselines].join(', ')}`);
  const mongodb = argv.includes('--mongodb');
  return {
    sections,
    mongodb,
    rate: number('rate', mongodb ? 100 : 1000),
    rounds: number('rounds', 3),
    duration: number('duration', 8),
    warmup: number('warmup', 5),
    runtimes: parseLines(value('node') ?? defaultLines.join(',')),
    only,
    profile: profile ?? null,
    keep: argv.includes('--keep'),
    compare: value('compare') ? path.resolve(value('compare')!) : null,
  };
}

/** The process of a database on this machine (`mongodb://127.0.0.1:PORT`, `localhost`), or null. */
function localDatabasePid(uri: string): number | null {
  const match = /^mongodb:\/\/(?:[^@/]*@)?(127\.0\.0\.1|localhost|\[::1\])(?::(\d+))?[/?]?/.exec(uri);
  return match ? listenerPid(Number(match[2] ?? 27017)) : null;
}

function mongoOf(options: Options): Env['mongo'] {
  if (!options.mongodb) return null;
  const uri = process.env.MONGODB_URI?.trim();
  if (!uri) throw new Error('--mongodb needs MONGODB_URI');
  const base = process.env.BENCH_MONGODB_DB?.trim() || 'loyalty_bench';
  return { uri, dbName: (suffix) => (suffix ? `${base}_${suffix}` : base), created: new Set() };
}

// ---------------------------------------------------------------------------
// The operations

/**
 * The operations' fixture. On MongoDB 2 reservations per member rather than
 * 10: a stand-in that scans where mongod uses an index (the MongoDB stand-in)
 * pays for every reservation on each change; the wallet section shows that the
 * server does not.
 */
function operationsFixture(env: Env): Partial<FixtureOptions> {
  return env.mongo ? { reservations: 4000, reservationsPerMember: 2 } : {};
}

/**
 * Every scenario on the server (a fleet of two on MongoDB) and, for those
 * with a route of their own, on the baselines: a warm-up each, then rounds
 * in which the targets' order rotates (bare first, then raw first, then the
 * server first...), so that the shared machine's drifts hit all alike. Then
 * the flood, and RSS before and after.
 */
async function operationsSection(env: Env, options: Options, stopLater: Target[]): Promise<RuntimeReport> {
  const deployment = await deploy(env, 'server', operationsFixture(env), { processes: env.mongo ? 2 : 1 });
  const server = deployment.server;
  stopLater.push(server);
  const compared = options.compare ? await deploy(env, 'other', operationsFixture(env), { processes: server.processes.length, main: options.compare }) : null;
  const other: Target | null = compared && { name: 'other', processes: compared.server.processes };
  if (other) stopLater.push(other);
  /** The deployment a target's requests are made for (its own sessions and reservations). */
  const deploymentOf = (target: Target) => (target === other ? compared! : deployment);
  const scenarios = options.only.filter((s) => s !== 'flood' && runsOn(s, env, deployment));
  for (const s of options.only) if (s !== 'flood' && !scenarios.includes(s)) log(`${s}: not run here (${whyNot(s, env, deployment)})`);
  const baselines = scenarios.some((s) => withBaselines.has(s)) ? [await startBaseline(env, deployment, 'express'), await startBaseline(env, deployment, 'raw')] : [];
  stopLater.push(...baselines);
  const pairedWithOther = (scenario: ScenarioName) => other !== null && runsOn(scenario, env, compared!);
  for (const s of compared ? scenarios.filter((s) => !pairedWithOther(s)) : []) log(`${s}: not run on the other build (${whyNot(s, env, compared!)})`);
  // The other build gets every run this one gets too: a build's CPU per request falls for thousands of requests (V8's tiers).
  const servers = (scenario: ScenarioName): Target[] => (pairedWithOther(scenario) ? [server, other!] : [server]);
  const targetsFor = (scenario: ScenarioName): Target[] => (withBaselines.has(scenario) ? [...baselines, ...servers(scenario)] : servers(scenario));

  log('Warm-up');
  let served = 0;
  // Steady state: every member's session used twice before measuring (each process keeps the sessions it has seen).
  const warmup = Math.max(options.warmup, (2 * deployment.plan.members.length) / env.rate);
  for (const scenario of scenarios) {
    const long = longWarmup.has(scenario);
    for (const target of targetsFor(scenario)) {
      const run = await measureRun(env, target, deploymentOf(target).scenario(scenario), long && (target === server || target === other) ? warmup : options.warmup);
      log(describeRun(`warm-up ${scenario} ${target.name}`, run));
    }
  }
  // The other build's heap is settled too: a forced full collection shrinks a heap's limit, and
  // the process then collects more often for a while, which would count against one build only.
  const [afterWarmup] = await Promise.all([settledRss(deployment), compared && settledRss(compared)]);

  const runs = new Map<string, Run[]>();
  const pairs = new Map<ScenarioName, Array<{ serverUs: number; otherUs: number; answered: boolean }>>();
  const driverCosts: DriverCosts[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    for (const scenario of scenarios) {
      const targets = targetsFor(scenario);
      const shift = (round - 1) % targets.length;
      for (const target of [...targets.slice(shift), ...targets.slice(0, shift)]) {
        const run = await measureRun(env, target, deploymentOf(target).scenario(scenario), options.duration);
        log(describeRun(`round ${round} ${scenario.padEnd(8)} ${target.name.padEnd(6)}`, run));
        const key = `${scenario} ${target.name}`;
        runs.set(key, [...(runs.get(key) ?? []), run]);
        if (target === server) served += run.load.responses;
      }
      if (pairedWithOther(scenario)) {
        // Which build takes the even requests alternates too.
        const order: [Target, Target] = round % 2 === 1 ? [server, other!] : [other!, server];
        const paired = await pairedRun(env, [[order[0], deploymentOf(order[0]).scenario(scenario)], [order[1], deploymentOf(order[1]).scenario(scenario)]], options.duration);
        const [serverUs, otherUs] = order[0] === server ? paired.usPerRequest : [paired.usPerRequest[1], paired.usPerRequest[0]];
        log(`  round ${round} ${scenario.padEnd(8)} paired: this build ${Math.round(serverUs)} µs CPU/request, the other ${Math.round(otherUs)} (${paired.load.answered}/${paired.load.offered} answered)`);
        pairs.set(scenario, [...(pairs.get(scenario) ?? []), { serverUs, otherUs, answered: paired.load.answered === paired.load.offered }]);
      }
    }
    if (deployment.database) driverCosts.push(await driverCostRun(env, deployment.database, round));
  }
  const driver = driverCosts.length > 0 ? driverCostReport(driverCosts, env, server.processes.length) : undefined;

  const summaryOf = (name: ScenarioName, target: string) => (runs.has(`${name} ${target}`) ? summarise(runs.get(`${name} ${target}`)!) : undefined);
  const reports: ScenarioReport[] = scenarios.map((name) => {
    const server = summaryOf(name, 'server')!;
    const bare = summaryOf(routeOf[name] ?? name, 'bare');
    const renewed = deployment.scenario(name).renewedEvery2s;
    const otherSummary = summaryOf(name, 'other');
    return {
      name,
      label: deployment.scenario(name).label,
      server,
      ...(withBaselines.has(name) && { bare: summaryOf(name, 'bare')!, raw: summaryOf(name, 'raw')! }),
      ...(pairs.has(name) && { compared: comparisonOf(pairs.get(name)!) }),
      ...(otherSummary && { other: otherSummary }),
      ...(driver && bare && { floor: floorOf(server, bare, driver) }),
      ...(renewed !== undefined && { renewedPerRequest: renewedPerRequest(runs.get(`${name} server`)!, renewed) }),
    };
  });
  let floodNote: string | undefined;
  if (options.only.includes('flood')) {
    const flooded = await floodRun(env, options, deployment);
    if (typeof flooded === 'string') floodNote = flooded;
    else {
      reports.push({ name: 'flood', label: deployment.scenario('flood').label, server: summarise([flooded]) });
      served += flooded.load.responses;
    }
  }
  const after = await settledRss(deployment);
  await Promise.all([...baselines.map(stopTarget), deployment.retire(), compared?.retire()]);
  const sweep = sweepShareOf(reports);
  return {
    node: env.runtime.version,
    processes: server.processes.length,
    asked: options.only,
    scenarios: reports,
    ...(floodNote && { floodNote }),
    ...(driver && { driver }),
    ...(sweep && { sweep }),
    memory: server.processes.map((child, i) => ({ process: child.name, afterWarmupMb: mb(afterWarmup[i]!), afterMb: mb(after[i]!), requests: Math.round(served / server.processes.length) })),
  };
}

/**
 * The flooding key: its requests first as fast as the server answers them
 * until every process refuses them (the limit used up, and each process's
 * blocks spent), then a measured run at the
 * fixed load while its window lasts (the `Retry-After` of the refusal), every
 * answer expected to be 429. A string says why it was not measured.
 */
async function floodRun(env: Env, options: Options, deployment: Deployment): Promise<Run | string> {
  const scenario = deployment.scenario('flood');
  const urls = deployment.server.processes.map((child) => child.url);
  const started = Date.now();
  let sent = 0;
  let retryAfter = 0;
  // Until a whole batch, spread over every process, is refused: each has spent the blocks it held.
  let allRefused = false;
  while (!allRefused && sent < rateLimitPerMinute * 2) {
    const answers = await Promise.all(
      Array.from({ length: 16 }, () => {
        const request = scenario.next();
        return send(urls[request.via % urls.length]!, request);
      }),
    );
    sent += answers.length;
    allRefused = answers.every((answer) => answer.status === 429);
    for (const answer of answers) if (answer.status === 429) retryAfter = Math.max(retryAfter, Number(answer.headers['retry-after']));
  }
  if (retryAfter === 0) return `not measured: no refusal after ${sent} requests of one key`;
  const seconds = Math.min(options.duration, retryAfter - 2);
  log(`Flood: the key refused after ${sent} requests in ${((Date.now() - started) / 1000).toFixed(1)} s; Retry-After ${retryAfter} s`);
  if (seconds < 2) return `not measured: the limit was used up ${retryAfter} s before its window's end`;
  const run = await measureRun(env, deployment.server, scenario, seconds);
  log(describeRun('flood', run));
  return run;
}

/** Whether a scenario runs on a deployment: what it needs of the fleet, the store and the build. */
function runsOn(scenario: ScenarioName, env: Env, deployment: Deployment): boolean {
  return whyNot(scenario, env, deployment) === null;
}

function whyNot(scenario: ScenarioName, env: Env, deployment: Deployment): string | null {
  // Wallets changed, sessions used, by both processes in turn need two of them.
  if ((scenario === 'B-shared' || scenario === 'A-paced') && deployment.server.processes.length < 2) return 'it needs a fleet of two';
  // Sessions kept by the process that started them, members kept 2 s: MongoDB only (the embedded store's reads cost nothing).
  if ((scenario === 'B-fresh' || scenario === 'session-again') && env.mongo === null) return 'MongoDB only';
  if (scenario === 'A-304' && !deployment.conditional) return 'the build tags no listing';
  if (scenario === 'sign-out' && !deployment.signsOut) return 'the build signs no session out';
  return null;
}

/**
 * The reads a scenario's runs may renew (`renewedEvery2s`, members with
 * their processes), per answer: each at most once per 2 s of a run, and
 * once more at its start.
 */
function renewedPerRequest(runs: Run[], renewedEvery2s: number): number {
  const allowed = runs.reduce((sum, run) => sum + renewedEvery2s * (Math.floor(run.load.seconds / 2) + 1), 0);
  const answers = runs.reduce((sum, run) => sum + run.load.responses, 0);
  return answers === 0 ? 0 : allowed / answers;
}

/** This build against the other over the paired runs: CPU per request averaged (each run weighs as much), and the ratio. */
function comparisonOf(runs: Array<{ serverUs: number; otherUs: number; answered: boolean }>): Comparison {
  const serverUs = runs.reduce((sum, r) => sum + r.serverUs, 0) / runs.length;
  const otherUs = runs.reduce((sum, r) => sum + r.otherUs, 0) / runs.length;
  return { serverUs, otherUs, ratio: serverUs / otherUs, ratios: runs.map((r) => r.serverUs / r.otherUs), allAnswered: runs.every((r) => r.answered) };
}

/** The driver's loop against the deployment's database (driver-cost.ts), after a round's runs. */
async function driverCostRun(env: Env, database: { uri: string; dbName: string }, round: number): Promise<DriverCosts> {
  const costs = await measureDriverCosts({ ...database, commands: 200, warmup: 20, idleSeconds: 3 }, path.join(env.tmp, `driver-cost-${round}.json`), env.runtime.execPath);
  const line = Object.entries(costs.byKind).map(([kind, c]) => `${kind} ${Math.round(c.cpuUs / c.commands)}`);
  log(`  round ${round} driver's own CPU per command, µs: ${line.join(', ')}; idle ${Math.round(costs.idle.cpuUs / costs.idle.seconds / 1000)} ms/s`);
  return costs;
}

function driverCostReport(rounds: DriverCosts[], env: Env, processes: number): DriverCostReport {
  const summed = new Map<string, { commands: number; cpuUs: number }>();
  for (const costs of rounds) {
    for (const [kind, c] of Object.entries(costs.byKind)) {
      const total = summed.get(kind) ?? { commands: 0, cpuUs: 0 };
      summed.set(kind, { commands: total.commands + c.commands, cpuUs: total.cpuUs + c.cpuUs });
    }
  }
  const all = [...summed.values()].reduce((t, c) => ({ commands: t.commands + c.commands, cpuUs: t.cpuUs + c.cpuUs }), { commands: 0, cpuUs: 0 });
  const idle = rounds.reduce((t, c) => ({ cpuUs: t.cpuUs + c.idle.cpuUs, seconds: t.seconds + c.idle.seconds }), { cpuUs: 0, seconds: 0 });
  return {
    usPerCommand: Object.fromEntries([...summed].map(([kind, c]) => [kind, c.cpuUs / c.commands])),
    meanUs: all.commands === 0 ? 0 : all.cpuUs / all.commands,
    commands: all.commands,
    // Each process of the fleet keeps a client: its idle CPU a second, over the requests a second.
    idleUsPerRequest: idle.seconds === 0 ? 0 : ((idle.cpuUs / idle.seconds) * processes) / env.rate,
  };
}

// ---------------------------------------------------------------------------
// Scale and wallet size: two deployments of one process, alternating rounds

async function alternating(env: Env, options: Options, small: Deployment, large: Deployment, scenario: 'A' | 'B', label: (d: Deployment) => string) {
  const runs = new Map<Deployment, Run[]>([[small, []], [large, []]]);
  for (const d of [small, large]) log(describeRun(`warm-up ${label(d)}`, await measureRun(env, d.server, d.scenario(scenario), options.warmup)));
  const rounds = Math.max(2, options.rounds - 1);
  for (let round = 1; round <= rounds; round++) {
    for (const d of round % 2 === 1 ? [small, large] : [large, small]) {
      const run = await measureRun(env, d.server, d.scenario(scenario), options.duration);
      runs.get(d)!.push(run);
      log(describeRun(`round ${round} ${label(d)}`, run));
    }
  }
  return { small: summarise(runs.get(small)!), large: summarise(runs.get(large)!) };
}

/**
 * The rate of the scale and wallet sections: on MongoDB a quarter of the
 * operations' (a stand-in of MongoDB scans the large collections on
 * every request, and would be saturated).
 */
const sizeEnv = (env: Env): Env => (env.mongo ? { ...env, rate: env.rate / 4 } : env);

async function scaleSection(parentEnv: Env, options: Options, stopLater: Target[]): Promise<PairReport> {
  const env = sizeEnv(parentEnv);
  log(`Scale: Operation A with 2,000 and with 20,000 definitions (same listed unit, same 100 items), ${env.rate} requests a second`);
  const common = { reservations: 2000, reservationsPerMember: 10 };
  const small = await deploy(env, 'scale2k', { ...common, definitions: 2000 });
  stopLater.push(small.server);
  const large = await deploy(env, 'scale20k', { ...common, definitions: 20000 });
  stopLater.push(large.server);
  const result = await alternating(env, options, small, large, 'A', (d) => `${d === small ? ' 2,000' : '20,000'} definitions`);
  await Promise.all([small.retire(), large.retire()]);
  const same = small.listing.equals(large.listing);
  return {
    label: `Scale: Operation A, the same 100 items listed among 2,000 or 20,000 definitions, one server process, ${env.rate} requests offered per second`,
    small: { ...result.small, size: 2000 },
    large: { ...result.large, size: 20000 },
    cpuRatio: result.large.cpuUsPerRequest / result.small.cpuUsPerRequest,
    note: same ? 'listings identical' : 'THE LISTINGS DIFFER',
  };
}

/**
 * Operation B on two deployments whose wallets differ only in how many live
 * reservations each holds (10 or 1,000, the default limit): one member per
 * client key, no households, each request lowering a different reservation.
 * Both hold as many reservations in all (idle wallets make up the
 * difference). On MongoDB 10 wallets rather than 100 (a stand-in may scan
 * where mongod uses an index, and loading takes longer).
 */
async function walletSection(parentEnv: Env, options: Options, stopLater: Target[]): Promise<PairReport> {
  const env = sizeEnv(parentEnv);
  const sizes = { small: 10, large: 1000 };
  const members = env.mongo ? 10 : 100;
  const all = members * sizes.large;
  log(`Wallet size: Operation B with ${sizes.small} and with ${sizes.large} live reservations per wallet (${members} wallets changed), ${env.rate} requests a second`);
  const fixture = (size: number) => ({ clients: members, reservations: members * size, reservationsPerMember: size, householdEvery: 0, definitions: 200, idleReservations: all - members * size });
  const small = await deploy(env, 'wallet10', fixture(sizes.small));
  stopLater.push(small.server);
  const large = await deploy(env, 'wallet1000', fixture(sizes.large));
  stopLater.push(large.server);
  const result = await alternating(env, options, small, large, 'B', (d) => `${d === small ? '   10' : '1,000'} per wallet`);
  await Promise.all([small.retire(), large.retire()]);
  return {
    label: `Wallet size: Operation B, ${members} wallets of ${sizes.small} or ${sizes.large} live reservations, one server process, ${env.rate} requests offered per second`,
    small: { ...result.small, size: sizes.small },
    large: { ...result.large, size: sizes.large },
    cpuRatio: result.large.cpuUsPerRequest / result.small.cpuUsPerRequest,
  };
}

// ---------------------------------------------------------------------------
// Profile

/**
 * CPU profiles (V8's, through profile-hook.js) of one server process and of
 * bare Express under one scenario at the fixed load, each per request, then
 * what the server spends beyond it, by package and by function.
 */
async function profileRun(env: Env, options: Options, scenario: ScenarioName, stopLater: Target[]): Promise<void> {
  const dir = path.join(repoRoot, 'bench', 'results', 'profiles');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const files = { server: path.join(dir, `${stamp}-${scenario}-server.cpuprofile`), bare: path.join(dir, `${stamp}-${scenario}-bare.cpuprofile`) };
  const deployment = await deploy(env, 'server', operationsFixture(env), { profileFile: files.server });
  stopLater.push(deployment.server);
  const bareChild = await startBare(deployment.captured, path.join(env.tmp, 'bare.json'), path.join(env.tmp, 'bare.log'), { profileFile: files.bare, execPath: env.runtime.execPath });
  const bare: Target = { name: 'bare', processes: [bareChild] };
  stopLater.push(bare);
  const responses = { server: 0, bare: 0 };
  for (const target of [deployment.server, bare]) {
    const child = target.processes[0]!;
    await measureRun(env, target, deployment.scenario(scenario), options.warmup);
    child.signal('SIGUSR2');
    const run = await measureRun(env, target, deployment.scenario(scenario), options.duration * 3);
    child.signal('SIGUSR2');
    responses[target.name === 'server' ? 'server' : 'bare'] = run.load.responses;
    await waitForFile(files[target.name === 'server' ? 'server' : 'bare']);
    log(describeRun(`profiled ${target.name}`, run));
  }
  const server = summariseProfile(files.server, 40);
  const baseline = summariseProfile(files.bare, 1000);
  const perRequest = (ms: number, n: number) => (ms * 1000) / Math.max(1, n);
  console.log(`\nServer: ${files.server}\n${formatProfile(server)}`);
  console.log(`\nCPU per request (profiled): server ${perRequest(server.totalMs, responses.server).toFixed(1)} µs, bare Express ${perRequest(baseline.totalMs, responses.bare).toFixed(1)} µs`);
  const diff = (list: 'byPackage' | 'byFunction') =>
    server[list].map((entry) => {
      const bareEntry = baseline[list].find((b) => b.name === entry.name);
      const serverUs = perRequest(entry.ms, responses.server);
      const bareUs = bareEntry ? perRequest(bareEntry.ms, responses.bare) : 0;
      return `  ${(serverUs - bareUs).toFixed(1).padStart(7)} µs  (server ${serverUs.toFixed(1)}, bare ${bareUs.toFixed(1)})  ${entry.name}`;
    });
  console.log(`\nPer request, server minus bare Express, by package:\n${diff('byPackage').join('\n')}`);
  console.log(`\nPer request, server minus bare Express, by function:\n${diff('byFunction').join('\n')}`);
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

const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

/**
 * RSS of each server process after full garbage collections and a second of
 * rest: both readings of the memory check in the same state, not wherever a
 * collection cycle left the heap (gc-hook.ts).
 */
async function settledRss(deployment: Deployment): Promise<number[]> {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const children = deployment.server.processes;
  await Promise.all(
    children.flatMap((child, i) => {
      const gcFile = deployment.gcFiles[i];
      return gcFile ? [collectGarbage(child, gcFile)] : [];
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return children.map((child) => rssOf(child.pid));
}

function stopTarget(target: Target): Promise<void> {
  return Promise.all(target.processes.map((child: Child) => child.stop())).then(() => undefined);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'loyalty-bench-'));
  const runtimes = options.runtimes.map(resolveRuntime);
  const mongo = mongoOf(options);
  const env: Env = { runtime: runtimes[0]!, tmp, mongo, databasePid: mongo ? localDatabasePid(mongo.uri) : null, rate: options.rate };
  const started: Target[] = [];
  const cleanup = async (): Promise<void> => {
    closeConnections();
    await Promise.all(started.map(stopTarget));
    if (options.keep) return;
    rmSync(tmp, { recursive: true, force: true });
    // An in-memory stand-in keeps every database until it stops.
    for (const dbName of mongo?.created ?? []) await dropDatabase(mongo!.uri, dbName).catch(() => undefined);
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
  const cpus = os.cpus();
  const report: Report = {
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model.trim() ?? 'unknown',
      memoryGb: Math.round(os.totalmem() / 1024 ** 3),
      node: process.version,
      platform: `${os.type()} ${os.release()} ${os.arch()}`,
      date: new Date().toISOString(),
    },
    options: { ...options, sections: [...options.sections] },
    mongodb: options.mongodb,
    rate: options.rate,
    runtimes: [],
    targets: [],
    checks: [],
  };
  log(`Temporary files in ${tmp}${options.keep ? ' (kept)' : ''}; runtimes ${runtimes.map((r) => r.version).join(', ')}; ${options.rate} requests offered per second`);
  try {
    if (options.profile) return await profileRun(env, options, options.profile, started);
    if (options.sections.has('operations')) {
      for (const runtime of runtimes) {
        log(`Node ${runtime.version} (${runtime.execPath})`);
        const result = await operationsSection({ ...env, runtime }, options, started);
        report.runtimes.push(result);
        report.targets.push(...(options.mongodb ? targetsOf(result) : embeddedTargetsOf(result)));
        report.targets.push(...conditionalTargetsOf(result));
        report.targets.push(...comparisonTargetsOf(result));
        report.checks.push(...checksOf(result));
      }
    }
    if (options.sections.has('scale')) report.scale = await scaleSection(env, options, started);
    if (options.sections.has('wallet')) {
      report.wallet = await walletSection(env, options, started);
      report.checks.push(walletCheck(report.wallet));
    }
    printReport(report);
    const resultsDir = path.join(repoRoot, 'bench', 'results');
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(path.join(resultsDir, options.mongodb ? 'latest-mongodb.json' : 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
    process.exitCode = [...report.targets, ...report.checks].every((c) => c.pass) ? 0 : 1;
  } finally {
    await cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
