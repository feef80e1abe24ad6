/**
 * The report: per scenario, the server against its baselines; the targets
 * the server must meet on MongoDB and the checks on either store, each
 * passed or missed.
 */
import type { ScenarioName } from './scenarios';
import type { Summary } from './measure';

export interface ScenarioReport {
  name: ScenarioName;
  label: string;
  server: Summary;
  /** Bare Express and raw node:http on the same route, load and rounds (absent for B-shared and the flood). */
  bare?: Summary;
  raw?: Summary;
  /** On MongoDB: what the scenario's work must cost at least (see `floorOf`). */
  floor?: Floor;
  /** Against another build (`--compare`), from the paired runs. */
  compared?: Comparison;
  /** The other build's own runs of the scenario (`--compare`): its commands per request beside this build's. */
  other?: Summary;
  /** The reads the scenario may renew (a member once per 2 s and process), per answer: allowed beside its own commands. */
  renewedPerRequest?: number;
}

/** This build and another answering alternate requests of the same runs (`--compare`). */
export interface Comparison {
  /** CPU microseconds per request, the mean of the paired runs. */
  serverUs: number;
  otherUs: number;
  ratio: number;
  /** Each run's ratio, to see the spread. */
  ratios: number[];
  allAnswered: boolean;
}

/**
 * A MongoDB scenario's floor: bare Express's CPU per request on its route in
 * the same run, plus the commands the server sent per request, each at the
 * driver's own CPU per command of its kind, measured in the same run by a
 * raw-driver loop of the same commands (driver-cost.ts). A kind the loop
 * does not send costs the loop's mean.
 */
export interface Floor {
  us: number;
  bareUs: number;
  commandsUs: number;
}

/** The driver's CPU per command by kind (`command collection`), from the loop's runs summed. */
export interface DriverCostReport {
  usPerCommand: Record<string, number>;
  /** For kinds the loop does not send. */
  meanUs: number;
  commands: number;
  /**
   * What the driver costs a process that sends nothing (its own timers),
   * per request of the scenarios' load: not in the floor (a serial loop
   * spreads it over a thousand commands a second), shown beside it.
   */
  idleUsPerRequest: number;
}

export function floorOf(server: Summary, bare: Summary, driver: DriverCostReport): Floor {
  const commandsUs = server.byCommand.reduce((sum, [kind, perRequest]) => sum + perRequest * (driver.usPerCommand[kind] ?? driver.meanUs), 0);
  return { us: bare.cpuUsPerRequest + commandsUs, bareUs: bare.cpuUsPerRequest, commandsUs };
}

export interface RuntimeReport {
  node: string;
  processes: number;
  /** The scenarios asked for (`--only`): the targets of the others are not reported. */
  asked: ScenarioName[];
  scenarios: ScenarioReport[];
  /** The flood: why it was not measured, when it was not. */
  floodNote?: string;
  /** On MongoDB: the driver's own CPU per command, measured in the same rounds. */
  driver?: DriverCostReport;
  /** On MongoDB: the outbox sweep's commands of the section, counted to the scenarios that change wallets (`sweepShareOf`). */
  sweep?: SweepShare;
  memory: Array<{ process: string; afterWarmupMb: number; afterMb: number; requests: number }>;
}

/**
 * The scenarios that change wallets. Each change leaves its outbox on the
 * wallet, delivered; the outbox sweep clears it later (every process,
 * every 30 s ± 6 s), in whichever run that falls. So the sweep's commands
 * are theirs, deferred: left out of every scenario's own, and counted to
 * these, per request of theirs.
 */
export const walletChangingScenarios: readonly ScenarioName[] = ['B', 'B-shared', 'B-fresh'];

/** The outbox sweep's commands over the section's measured runs of this build. */
export interface SweepShare {
  /** In all, by `command collection`, the most first. */
  byCommand: Array<[string, number]>;
  commands: number;
  /** The answers of the wallet-changing scenarios' runs, which they are counted to (0: none ran). */
  requests: number;
  /** Commands per request of those scenarios; null when none ran (the sweep's commands are then nobody's). */
  perRequest: number | null;
}

/** The sweep's commands of every scenario's runs, summed and spread over the wallet-changing scenarios' requests; none when commands were not counted. */
export function sweepShareOf(scenarios: ScenarioReport[]): SweepShare | undefined {
  const counted = scenarios.filter((s) => s.server.commandsPerRequest !== null);
  if (counted.length === 0) return undefined;
  const byKind = new Map<string, number>();
  for (const s of counted) for (const [kind, n] of s.server.sweepCommands) byKind.set(kind, (byKind.get(kind) ?? 0) + n);
  const commands = [...byKind.values()].reduce((sum, n) => sum + n, 0);
  const requests = counted.filter((s) => walletChangingScenarios.includes(s.name)).reduce((sum, s) => sum + s.server.responses, 0);
  return { byCommand: [...byKind].sort((a, b) => b[1] - a[1]), commands, requests, perRequest: requests === 0 ? null : commands / requests };
}

/** A scenario's MongoDB commands per request in all: its own runs', and for a wallet-changing one its share of the sweep's; null when not counted. */
export function commandsInAll(runtime: RuntimeReport, scenario: ScenarioReport): { all: number; sweep: number } | null {
  const own = scenario.server.commandsPerRequest;
  if (own === null) return null;
  const sweep = walletChangingScenarios.includes(scenario.name) ? (runtime.sweep?.perRequest ?? 0) : 0;
  return { all: own + sweep, sweep };
}

export interface PairReport {
  label: string;
  small: Summary & { size: number };
  large: Summary & { size: number };
  cpuRatio: number;
  note?: string;
}

export interface Check {
  what: string;
  value: string;
  limit: string;
  pass: boolean;
}

export interface Report {
  machine: Record<string, unknown>;
  options: Record<string, unknown>;
  mongodb: boolean;
  rate: number;
  runtimes: RuntimeReport[];
  scale?: PairReport;
  wallet?: PairReport;
  targets: Check[];
  checks: Check[];
}

/**
 * The fleet's targets on MongoDB (two processes on one database, steady
 * state): commands per request in all, the fleet's upkeep included (below).
 * Start Session and A-paced: issue 42's (sealed session tokens).
 */
const commandTargets: Partial<Record<ScenarioName, number>> = { session: 1.05, A: 0.2, 'A-paced': 0.1, B: 4, 'B-shared': 4, 'B-fresh': 4, flood: 0.05 };
/**
 * What a process sends now and then for all its requests, whatever they
 * ask (the upkeep; docs/scaling-out.md): the session keys with the sessions
 * ended since the last read (one aggregate per 1.5 s; a page past the
 * first, or a database without a key, one find more), each API key read again
 * (every 2 s) and the publishable keys' origins, the definitions version
 * (once a second), a rate-limit claim per block of a key's requests. At 100
 * requests a second on a fleet of two it comes to about 0.1 per request,
 * and to less at a higher rate.
 */
export const upkeepCommands = new Set(['aggregate sessionKeys', 'find endedSessions', 'aggregate apiKeys', 'find apiKeys', 'find meta', 'findAndModify rateLimits', 'update rateLimits']);
/**
 * The collections of the wallets' outbox: in a scenario that changes no
 * wallet, a command on them is the outbox sweep's (every 30 s per process)
 * or an earlier scenario's delivery, never the request's.
 */
const outboxCollections = ['wallets', 'reservations', 'audit'];
/**
 * Issue 42's targets of a request's own commands (all but the upkeep and,
 * as these change no wallet, the outbox's): a token nobody issued or one
 * with a character changed none; Start Session for a member its process
 * read less than 2 s before none (beyond each member's read renewed every
 * 2 s: `renewedPerRequest`); a sign-out exactly one, its write.
 */
const ownTargets: Partial<Record<ScenarioName, { limit: number; exactly?: boolean }>> = { forged: { limit: 0 }, 'session-again': { limit: 0 }, 'sign-out': { limit: 1, exactly: true } };
const cpuTargets: Partial<Record<ScenarioName, number>> = { A: 2, B: 10, 'B-shared': 10 };
/** On the embedded store (one process, every Node line measured): CPU per request over bare Express. */
const embeddedCpuTargets: Partial<Record<ScenarioName, number>> = { B: 2 };
/** Server CPU per request over the scenario's floor (see `Floor`). */
const floorTargets: Partial<Record<ScenarioName, number>> = { A: 1.2, B: 1.5 };
/** A listing fetched again (`If-None-Match`, 304): server CPU per request over bare Express's own 304, on either store. */
const notModifiedTarget = 1.1;
/**
 * B's p99 in milliseconds; past it, met only when the time is the store's,
 * not the process's: the event loop's p99 delay at most `ownDelayMs`, and
 * the store calls' p99 at least half the request's.
 */
const p99Target = { B: 100 } as const;
const ownDelayMs = 10;
/** B's commands when two processes change a wallet, within this much of when one does. */
const sharedTolerance = 0.1;
/**
 * B with sessions its process has just started: commands per request on the
 * request path, the outbox's deliveries after the answers left out (they
 * are B's, batched, their share set by the load): the session is not read.
 */
const freshRequestPathTarget = 2.1;
/** The commands only the outbox sends, after the answers. */
const outboxCommands = new Set(['update reservations', 'insert audit']);
export const memoryLimitMb = 50;
export const walletCpuLimit = 2;

const fmt = (n: number, digits = 2): string => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const us = (n: number): string => fmt(n, 0);

/** What either store must meet: a conditional listing about as cheap as Express's own conditional GET. */
export function conditionalTargetsOf(runtime: RuntimeReport): Check[] {
  const scenario = runtime.scenarios.find((s) => s.name === 'A-304');
  if (!runtime.asked.includes('A-304')) return [];
  const bare = scenario?.bare;
  const ratio = scenario && bare ? scenario.server.cpuUsPerRequest / bare.cpuUsPerRequest : null;
  const served = scenario !== undefined && scenario.server.answered === scenario.server.offered;
  return [
    {
      what: `${labelOf('A-304')}: server CPU per request over bare Express's own 304 (its ETag of the body), every offered request served (Node ${runtime.node})`,
      value: ratio === null ? 'not measured' : `${fmt(ratio)}x (${us(scenario!.server.cpuUsPerRequest)} / ${us(bare!.cpuUsPerRequest)} µs)${served ? '' : `; ${scenario!.server.answered} of ${scenario!.server.offered} served`}`,
      limit: `<= ${notModifiedTarget}x`,
      pass: ratio !== null && served && ratio <= notModifiedTarget,
    },
  ];
}

/** `--compare`: how much more CPU per request than the other build a change may cost (CONTRIBUTING.md: before a merge). */
export const comparedCpuLimit = 1.05;

/** `--compare`: each compared scenario's paired CPU per request over the other build's, within `comparedCpuLimit` or not. */
export function comparisonTargetsOf(runtime: RuntimeReport): Check[] {
  return runtime.scenarios.flatMap(({ name, compared }) =>
    compared
      ? [
          {
            what: `${labelOf(name)}: server CPU per request over the other build's (--compare), paired (Node ${runtime.node})`,
            value: `${fmt(compared.ratio)} (${compared.ratios.map((r) => fmt(r)).join(', ')})${compared.allAnswered ? '' : '; not every request answered'}`,
            limit: `<= ${comparedCpuLimit}`,
            pass: compared.allAnswered && compared.ratio <= comparedCpuLimit,
          },
        ]
      : [],
  );
}

/**
 * One line for `--compare`: each operation's paired ratio, and whether all
 * are within `comparedCpuLimit` (what to read before merging a change).
 */
export function verdictOf(report: Report): string | null {
  const pairs = report.runtimes.flatMap((runtime) =>
    runtime.scenarios.flatMap(({ name, compared }) => (compared ? [{ name: report.runtimes.length > 1 ? `${name} (Node ${runtime.node})` : name, compared }] : [])),
  );
  if (pairs.length === 0) return null;
  const over = pairs.filter(({ compared }) => !(compared.allAnswered && compared.ratio <= comparedCpuLimit));
  const ratios = pairs.map(({ name, compared }) => `${name} ${fmt(compared.ratio)}`).join(', ');
  const against = typeof report.options.compare === 'string' ? report.options.compare : 'the other build';
  return over.length === 0
    ? `Verdict against ${against}: ${ratios}; each within ${comparedCpuLimit}.`
    : `Verdict against ${against}: ${ratios}; OVER ${comparedCpuLimit}: ${over.map(({ name }) => name).join(', ')}.`;
}

export function targetsOf(runtime: RuntimeReport): Check[] {
  const checks: Check[] = [];
  const byName = new Map(runtime.scenarios.map((s) => [s.name, s]));
  const node = `Node ${runtime.node}`;
  const asked = (name: ScenarioName) => runtime.asked.includes(name);
  for (const [name, limit] of Object.entries(commandTargets) as Array<[ScenarioName, number]>) {
    if (!asked(name)) continue;
    const scenario = byName.get(name);
    const counted = scenario ? commandsInAll(runtime, scenario) : null;
    const value = counted === null ? (scenario ? 'not counted' : (runtime.floodNote ?? 'not measured')) : fmt(counted.all);
    checks.push({
      what: `${labelOf(name)}: MongoDB commands per request (${node})`,
      value: counted && counted.sweep > 0 ? `${value} (${fmt(counted.all - counted.sweep)} and the outbox sweep's ${fmt(counted.sweep)})` : value,
      limit: `<= ${limit}`,
      pass: counted !== null && counted.all <= limit,
    });
  }
  checks.push(...ownTargetsOf(runtime));
  const own = byName.get('B')?.server.commandsPerRequest;
  const shared = byName.get('B-shared')?.server.commandsPerRequest;
  const ratio = own && shared !== undefined && shared !== null ? shared / own : null;
  if (asked('B') && asked('B-shared')) checks.push({
    what: `B: commands with two processes changing a wallet over one (${node})`,
    value: ratio === null ? 'not measured' : `${fmt(ratio)} (${fmt(shared!)} / ${fmt(own!)})`,
    limit: `1 ± ${sharedTolerance}`,
    pass: ratio !== null && Math.abs(ratio - 1) <= sharedTolerance,
  });
  if (asked('B-fresh')) {
    const scenario = byName.get('B-fresh');
    const fresh = scenario?.server;
    const inAll = scenario ? commandsInAll(runtime, scenario) : null;
    const path = fresh && inAll ? fresh.byCommand.filter(([kind]) => !outboxCommands.has(kind)).reduce((sum, [, n]) => sum + n, 0) : null;
    checks.push({
      what: `B with sessions just started on its process: commands per request on the request path (all but the outbox's deliveries after the answers, and its sweep) (${node})`,
      value: path === null ? 'not measured' : `${fmt(path)} (${fmt(inAll!.all)} in all)`,
      limit: `<= ${freshRequestPathTarget}`,
      pass: path !== null && path <= freshRequestPathTarget,
    });
  }
  checks.push(...overBareTargets(runtime, cpuTargets));
  for (const [name, limit] of Object.entries(p99Target) as Array<[ScenarioName, number]>) {
    if (!asked(name)) continue;
    const server = byName.get(name)?.server;
    const latency = server?.latency;
    const own = latency?.eventLoopDelayP99Ms;
    const store = latency?.storeCallP99Ms;
    const waitsOnStore = own != null && store != null && own <= ownDelayMs && store >= server!.p99 / 2;
    checks.push({
      what: `${labelOf(name)}: server p99, or the store's time when over it (the event loop's p99 delay <= ${ownDelayMs} ms, store calls' p99 >= half the request's) (${node})`,
      value: server
        ? `${fmt(server.p99, 1)} ms; the event loop's p99 delay ${own == null ? '-' : `${fmt(own, 1)} ms`}, store calls' p99 ${store == null ? '-' : `<= ${fmt(store, 0)} ms`}`
        : 'not measured',
      limit: `<= ${limit} ms`,
      pass: server !== undefined && (server.p99 <= limit || waitsOnStore),
    });
  }
  for (const [name, limit] of Object.entries(floorTargets) as Array<[ScenarioName, number]>) {
    if (!asked(name)) continue;
    const floor = byName.get(name)?.floor;
    const server = byName.get(name)?.server;
    const ratio = floor && server ? server.cpuUsPerRequest / floor.us : null;
    checks.push({
      what: `${labelOf(name)}: server CPU per request over its floor (${node})`,
      value: ratio === null ? 'not measured' : `${fmt(ratio)} (${us(server!.cpuUsPerRequest)} / ${us(floor!.us)} µs: bare Express ${us(floor!.bareUs)} + commands ${us(floor!.commandsUs)})`,
      limit: `<= ${limit}`,
      pass: ratio !== null && ratio <= limit,
    });
  }
  return checks;
}

/** A request's own commands per answer, by kind: all but the upkeep and the outbox's (`ownTargets`). */
export function ownCommandsOf(summary: Summary): Array<[string, number]> {
  return summary.byCommand.filter(([kind]) => !upkeepCommands.has(kind) && !outboxCollections.includes(kind.split(' ')[1] ?? ''));
}

function ownTargetsOf(runtime: RuntimeReport): Check[] {
  const byName = new Map(runtime.scenarios.map((s) => [s.name, s]));
  return (Object.entries(ownTargets) as Array<[ScenarioName, { limit: number; exactly?: boolean }]>).flatMap(([name, { limit, exactly }]) => {
    if (!runtime.asked.includes(name)) return [];
    const scenario = byName.get(name);
    const server = scenario?.server;
    const what = `${labelOf(name)}: MongoDB commands per request of its own, the upkeep left out (Node ${runtime.node})`;
    if (!server || server.commandsPerRequest === null) return [{ what, value: server ? 'not counted' : 'not measured', limit: `${exactly ? '=' : '<='} ${limit}`, pass: false }];
    const own = ownCommandsOf(server);
    const total = own.reduce((sum, [, n]) => sum + n, 0);
    const renewed = scenario?.renewedPerRequest ?? 0;
    // Reads renewed once per 2 s (a member kept 2 s by its process) are allowed up to their count: beyond them, the request's own.
    const beyond = Math.max(0, total - renewed);
    const pass = exactly ? Math.abs(beyond - limit) < 1e-9 : beyond <= limit + 1e-9;
    const detail = own.length === 0 ? 'none' : own.map(([kind, n]) => `${kind} ${fmt(n, 4)}`).join(', ');
    const allowance = renewed > 0 ? `, beyond each member's read renewed once per 2 s and process (up to ${fmt(renewed, 4)})` : '';
    return [{ what, value: `${fmt(beyond, 4)}${allowance}: ${detail}; ${fmt(server.commandsPerRequest)} in all with the upkeep`, limit: `${exactly ? '=' : '<='} ${limit}`, pass }];
  });
}

/** The embedded store's targets: B's CPU per request over bare Express's. */
export function embeddedTargetsOf(runtime: RuntimeReport): Check[] {
  return overBareTargets(runtime, embeddedCpuTargets);
}

/** Server CPU per request over bare Express's in the same run, every offered request served (B-shared against B's baseline). */
function overBareTargets(runtime: RuntimeReport, limits: Partial<Record<ScenarioName, number>>): Check[] {
  const byName = new Map(runtime.scenarios.map((s) => [s.name, s]));
  const node = `Node ${runtime.node}`;
  const baselineB = byName.get('B')?.bare;
  return (Object.entries(limits) as Array<[ScenarioName, number]>).flatMap(([name, limit]) => {
    if (!runtime.asked.includes(name)) return [];
    const scenario = byName.get(name);
    const bare = scenario?.bare ?? (name === 'B-shared' ? baselineB : undefined);
    if (!scenario || !bare) return [{ what: `${labelOf(name)}: server CPU per request over bare Express (${node})`, value: 'not measured', limit: `<= ${limit}x`, pass: false }];
    const served = scenario.server.answered === scenario.server.offered;
    const cpu = scenario.server.cpuUsPerRequest / bare.cpuUsPerRequest;
    return [
      {
        what: `${labelOf(name)}: server CPU per request over bare Express, every offered request served (${node})`,
        value: `${fmt(cpu, 1)}x (${us(scenario.server.cpuUsPerRequest)} / ${us(bare.cpuUsPerRequest)} µs)${served ? '' : `; ${scenario.server.answered} of ${scenario.server.offered} served`}`,
        limit: `<= ${limit}x`,
        pass: served && cpu <= limit,
      },
    ];
  });
}

/** What holds on either store: every offered request answered as expected, memory flat. */
export function checksOf(runtime: RuntimeReport): Check[] {
  const checks: Check[] = [];
  const unserved = runtime.scenarios.flatMap((s) =>
    (['server', 'bare', 'raw'] as const).flatMap((target) => {
      const summary = s[target];
      return summary && summary.answered !== summary.offered ? [`${s.name} ${target} ${summary.answered}/${summary.offered} ${JSON.stringify(summary.statuses)}`] : [];
    }),
  );
  checks.push({
    what: `every offered request answered with its status, every scenario and target (Node ${runtime.node})`,
    value: unserved.length === 0 ? 'all' : unserved.join('; '),
    limit: 'all',
    pass: unserved.length === 0,
  });
  for (const m of runtime.memory) {
    const delta = m.afterMb - m.afterWarmupMb;
    checks.push({
      what: `${m.process}: RSS after ${m.requests.toLocaleString('en-US')} more requests than the warm-up (Node ${runtime.node})`,
      value: `${delta >= 0 ? '+' : ''}${fmt(delta, 1)} MB (${fmt(m.afterWarmupMb, 1)} -> ${fmt(m.afterMb, 1)})`,
      limit: `<= +${memoryLimitMb} MB`,
      pass: delta <= memoryLimitMb,
    });
  }
  return checks;
}

export function walletCheck(wallet: PairReport): Check {
  const served = wallet.small.answered === wallet.small.offered && wallet.large.answered === wallet.large.offered;
  return {
    what: `B: server CPU per request with ${wallet.large.size} live reservations per wallet over ${wallet.small.size}, every request served`,
    value: `${fmt(wallet.cpuRatio)} (${us(wallet.small.cpuUsPerRequest)} -> ${us(wallet.large.cpuUsPerRequest)} µs)`,
    limit: `<= ${walletCpuLimit}`,
    pass: served && wallet.cpuRatio <= walletCpuLimit,
  };
}

/** The report's line on the outbox sweep: how it is counted, and why. */
export function sweepLine(sweep: SweepShare): string {
  const counted =
    sweep.perRequest === null
      ? 'counted to no scenario here (none that changes wallets ran)'
      : `counted to the scenarios that change wallets (B, B-shared, B-fresh: ${fmt(sweep.perRequest)} per request of theirs, ${sweep.requests.toLocaleString('en-US')} requests, in their targets)`;
  return (
    `The outbox sweep (every process, every 30 s ± 6 s: it clears the outboxes that changes of wallets leave, in whichever run comes next) ` +
    `sent ${sweep.commands.toLocaleString('en-US')} commands in the runs above: left out of each scenario's commands, and ${counted}.`
  );
}

function labelOf(name: ScenarioName): string {
  return {
    session: 'Start Session',
    'session-again': 'Start Session, a member its process read < 2 s before',
    A: 'A',
    'A-304': 'A again, If-None-Match: 304',
    'A-paced': 'A, each session every 2.5 s, either process, 8 uses',
    B: 'B, each wallet by one process',
    'B-shared': 'B, each wallet by both processes in turn',
    'B-fresh': 'B, each session just started on its process',
    forged: 'A with a token not issued or changed: 401',
    'sign-out': 'sign-out',
    flood: 'a flooding key, each refused request',
  }[name];
}

export function printReport(report: Report): void {
  const lines: string[] = [];
  const store = report.mongodb ? 'MongoDB' : 'embedded store';
  for (const runtime of report.runtimes) {
    lines.push(
      '',
      `=== ${store}, ${runtime.processes === 1 ? 'one server process' : `a fleet of ${runtime.processes} server processes on one database`}, ` +
        `${fmt(report.rate, 0)} requests offered per second, Node ${runtime.node} ===`,
      '',
    );
    const database = runtime.scenarios.some((s) => s.server.databaseCpuUsPerRequest !== null);
    const floors = runtime.driver !== undefined;
    const compared = runtime.scenarios.some((s) => s.compared !== undefined);
    const columns = [
      'scenario', 'server CPU µs/request', 'bare Express', 'raw node:http', 'server / bare', ...(floors ? ['floor µs/request', 'server / floor'] : []),
      ...(compared ? ['paired: this build / the other (each run)'] : []),
      'server p50 / p99 ms', 'bare p50 / p99 ms', 'answered / offered', 'commands / request', 'writes / request',
      ...(compared ? ['the other build: commands / request'] : []), ...(database ? ['database CPU µs/request'] : []),
    ];
    lines.push(`| ${columns.join(' | ')} |`, `|${'---|'.repeat(columns.length)}`);
    const latency = (x: Summary | undefined) => (x ? `${fmt(x.p50, 1)} / ${fmt(x.p99, 1)}` : '');
    const perRequest = (n: number | null) => (n === null ? '-' : fmt(n));
    for (const { name, server, bare, raw, floor, compared: pair, other } of runtime.scenarios) {
      const cells = [
        labelOf(name), us(server.cpuUsPerRequest), bare ? us(bare.cpuUsPerRequest) : '', raw ? us(raw.cpuUsPerRequest) : '',
        bare ? `${fmt(server.cpuUsPerRequest / bare.cpuUsPerRequest, 1)}x` : '',
        ...(floors ? [floor ? us(floor.us) : '', floor ? `${fmt(server.cpuUsPerRequest / floor.us)}x` : ''] : []),
        ...(compared ? [pair ? `${us(pair.serverUs)} / ${us(pair.otherUs)} µs = ${fmt(pair.ratio)} (${pair.ratios.map((r) => fmt(r)).join(', ')})${pair.allAnswered ? '' : ' NOT ALL ANSWERED'}` : ''] : []),
        latency(server), latency(bare),
        `${server.answered} / ${server.offered}`, perRequest(server.commandsPerRequest), perRequest(server.writesPerRequest),
        ...(compared ? [other ? `${perRequest(other.commandsPerRequest)}${other.answered === other.offered ? '' : ` (${other.answered} / ${other.offered} answered)`}` : ''] : []),
        ...(database ? [server.databaseCpuUsPerRequest === null ? '-' : us(server.databaseCpuUsPerRequest)] : []),
      ];
      lines.push(`| ${cells.join(' | ')} |`);
    }
    if (runtime.floodNote) lines.push(`(flood: ${runtime.floodNote})`);
    if (runtime.sweep) lines.push('', sweepLine(runtime.sweep));
    if (runtime.driver) {
      const kinds = Object.entries(runtime.driver.usPerCommand).map(([kind, n]) => `${kind} ${us(n)}`);
      lines.push(
        '',
        `The driver's own CPU per command, µs (a raw-driver loop of the same commands, ${runtime.driver.commands.toLocaleString('en-US')} in all, in the same rounds; ` +
          `mean ${us(runtime.driver.meanUs)} for other kinds): ${kinds.join(', ')}. ` +
          `An idle client of the driver in each process costs another ${us(runtime.driver.idleUsPerRequest)} µs per request at this load (not in the floor).`,
      );
    }
    const latencies = runtime.scenarios.filter((s) => s.server.latency);
    if (latencies.length > 0) {
      lines.push('', "Where the server's time went (medians of the runs): its p99; the event loop's p99 delay (the process busy); the store calls' p99:");
      for (const { name, server } of latencies) {
        const { eventLoopDelayP99Ms: own, storeCallP99Ms: store } = server.latency!;
        lines.push(`  ${labelOf(name)}: ${fmt(server.p99, 1)} ms; ${own === null ? '-' : `${fmt(own, 1)} ms`}; ${store === null ? '-' : `<= ${fmt(store, 1)} ms`}`);
      }
    }
    const counted = runtime.scenarios.filter((s) => s.server.byCommand.length > 0);
    if (counted.length > 0) {
      lines.push('', 'MongoDB commands per request, by command and collection:');
      for (const s of counted) lines.push(`  ${labelOf(s.name)}: ${s.server.byCommand.map(([key, n]) => `${key} ${fmt(n)}`).join(', ')}`);
      if (runtime.sweep && runtime.sweep.commands > 0) lines.push(`  the outbox sweep, in all (not per request): ${runtime.sweep.byCommand.map(([key, n]) => `${key} ${n}`).join(', ')}`);
      const others = runtime.scenarios.filter((s) => s.other && s.other.byCommand.length > 0);
      if (others.length > 0) lines.push('', 'The other build (--compare), its own runs:');
      for (const s of others) lines.push(`  ${labelOf(s.name)}: ${s.other!.byCommand.map(([key, n]) => `${key} ${fmt(n)}`).join(', ')}`);
    }
  }
  for (const pair of [report.scale, report.wallet]) {
    if (!pair) continue;
    const row = (x: Summary & { size: number }) =>
      `  ${String(x.size).padStart(6)}: ${us(x.cpuUsPerRequest)} µs CPU/request, p50 ${fmt(x.p50, 1)} ms, p99 ${fmt(x.p99, 1)} ms, ${x.answered}/${x.offered} answered` +
      (x.commandsPerRequest === null ? '' : `, ${fmt(x.commandsPerRequest)} commands/request`);
    lines.push('', pair.label, row(pair.small), row(pair.large), `  server CPU per request, ${pair.large.size} over ${pair.small.size}: ${fmt(pair.cpuRatio)}${pair.note ? `; ${pair.note}` : ''}`);
  }
  const section = (title: string, checks: Check[]) => {
    if (checks.length === 0) return;
    lines.push('', title);
    for (const c of checks) lines.push(`  ${c.pass ? 'MET   ' : 'MISSED'}  ${c.what}: ${c.value} (target ${c.limit})`);
  };
  section(report.mongodb ? 'Targets (MongoDB, two processes on one database, steady state):' : 'Targets:', report.targets);
  section('Checks:', report.checks);
  const missed = [...report.targets, ...report.checks].filter((c) => !c.pass);
  const verdict = verdictOf(report);
  lines.push(
    '',
    ...(verdict ? [verdict] : []),
    missed.length === 0
      ? 'Every target and check met.'
      : `${missed.length} of ${report.targets.length + report.checks.length} targets and checks MISSED (exit code 1).`,
    `Machine: ${String(report.machine.cpus)} x ${String(report.machine.cpuModel)}, ${String(report.machine.memoryGb)} GB, ${String(report.machine.platform)}; load generator on Node ${String(report.machine.node)}`,
  );
  console.log(lines.join('\n'));
}
