/**
 * Child processes of the bench: the real server (compiled, as in production)
 * and the baselines, each in a process of its own; what each costs
 * (/proc) and the MongoDB commands it counted (its /metrics).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { BareConfig } from './bare-server';
import type { DriverCostConfig, DriverCosts } from './driver-cost';

/** Compiled to bench/dist/bench/ (the bench's build reaches server/src/test-support from the repository's root). */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');
/** The compiled server; BENCH_SERVER_MAIN points elsewhere (experiments on a modified build). */
const serverMain = process.env.BENCH_SERVER_MAIN ?? path.join(repoRoot, 'server', 'dist', 'main.js');
const bareMain = path.join(__dirname, 'bare-server.js');
const profileHook = path.join(__dirname, 'profile-hook.js');
const gcHook = path.join(__dirname, 'gc-hook.js');
const driverCostMain = path.join(__dirname, 'driver-cost.js');

export interface Child {
  name: string;
  pid: number;
  url: string;
  /**
   * A server's `/metrics`: on the port of its own its log names, or, for an
   * older build that serves it beside the API (`--compare`), on the API's.
   * Absent for the baselines.
   */
  metricsUrl?: string;
  /** Where the child's stdout goes (the server's JSON log lines). */
  logFile: string;
  /** Sends a signal (the profiling hook listens to SIGUSR2). */
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface ServerOptions {
  name: string;
  /** The fixture to load at start; absent, the process starts on what the database holds (the fleet's second). */
  seedFile?: string;
  logFile: string;
  rateLimitPerMinute: number;
  /** MongoDB to use; the embedded store when absent. */
  mongo?: { uri: string; dbName: string };
  /** Preload the profiling hook: SIGUSR2 starts, a second one writes this file (see profile-hook.ts). */
  profileFile?: string;
  /** Load `gc-hook.js` (see `collectGarbage`); not with `profileFile`, which uses the same signal. */
  gcFile?: string;
  /** The Node binary to run it with (see runtimes.ts); this process's by default. */
  execPath?: string;
  /** The compiled server to run: `server/dist/main.js` (or BENCH_SERVER_MAIN) by default; another build with `--compare`. */
  main?: string;
}

/** What the server gets of the bench's environment: nothing that configures it (no OTEL_*, MONGODB_*, METRICS...). */
const inherited = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];

/**
 * `node --enable-source-maps server/dist/main.js` with NODE_ENV=production,
 * logging at `info` (JSON lines into `logFile`), metrics on, on a free port
 * of their own (METRICS_PORT=0: the fleet's two processes share a host),
 * tracing off, response validation off (as always outside tests), request
 * validation and rate limiting on; every other setting its default.
 */
export async function startServer(options: ServerOptions): Promise<Child> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const name of inherited) if (process.env[name] !== undefined) env[name] = process.env[name];
  Object.assign(env, {
    NODE_ENV: 'production',
    PORT: String(port),
    LOG_LEVEL: 'info',
    METRICS: 'on',
    METRICS_PORT: '0',
    RATE_LIMIT_PER_MINUTE: String(options.rateLimitPerMinute),
    SHUTDOWN_GRACE_MS: '2000',
  });
  if (options.seedFile) env.SEED_FILE = options.seedFile;
  if (options.mongo) Object.assign(env, { MONGODB_URI: options.mongo.uri, MONGODB_DB: options.mongo.dbName });
  // BENCH_SERVER_NODE_FLAGS: extra flags for the server's Node, e.g. `--perf-basic-prof` to profile it with Linux perf.
  const nodeArgs = ['--enable-source-maps', ...(process.env.BENCH_SERVER_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])];
  if (options.profileFile) {
    nodeArgs.push('--require', profileHook);
    env.BENCH_PROFILE_FILE = options.profileFile;
  } else if (options.gcFile) {
    nodeArgs.push('--require', gcHook);
    env.BENCH_GC_FILE = options.gcFile;
  }
  const out = openSync(options.logFile, 'w');
  const child = spawn(options.execPath ?? process.execPath, [...nodeArgs, options.main ?? serverMain], { env, stdio: ['ignore', out, 'pipe'] });
  closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  await waitUntilUp(child, url, options.name, options.logFile);
  return { ...wrap(options.name, child, url, options.logFile), metricsUrl: await metricsUrlOf(options.logFile, url) };
}

/** How long a server's first log lines may take to reach its file: its log is buffered, and flushed at least once a second. */
const firstLinesWithinMs = 10_000;

/**
 * Where a server serves `/metrics`: the URL its log line after `Listening
 * on` names (`Metrics on <url>/metrics`, METRICS_PORT); an older build
 * that names none (`--compare`) serves it on the API's port.
 */
async function metricsUrlOf(logFile: string, url: string): Promise<string> {
  const deadline = Date.now() + firstLinesWithinMs;
  while (Date.now() < deadline) {
    const lines = safeRead(logFile).split('\n').flatMap((line) => {
      try {
        return [JSON.parse(line) as { msg?: unknown; metricsUrl?: unknown }];
      } catch {
        return [];
      }
    });
    if (lines.some((line) => typeof line.msg === 'string' && line.msg.startsWith('Listening on '))) {
      const own = lines.find((line) => typeof line.metricsUrl === 'string')?.metricsUrl as string | undefined;
      return own ? `${own.replace(/^http:\/\/(\[::\]|0\.0\.0\.0)/, 'http://127.0.0.1')}/metrics` : `${url}/metrics`;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return `${url}/metrics`;
}

/** A baseline (bare Express; raw node:http with `kind: 'raw'`), answering with `responses`. */
export async function startBare(
  responses: BareConfig['responses'],
  configFile: string,
  logFile: string,
  { profileFile, execPath, kind = 'express' }: { profileFile?: string; execPath?: string; kind?: BareConfig['kind'] } = {},
): Promise<Child> {
  const port = await freePort();
  writeFileSync(configFile, JSON.stringify({ port, kind, responses } satisfies BareConfig));
  const out = openSync(logFile, 'w');
  const execArgv = profileFile ? ['--require', profileHook] : [];
  const env = { ...process.env, NODE_ENV: 'production', ...(profileFile ? { BENCH_PROFILE_FILE: profileFile } : {}) };
  const child = fork(bareMain, [configFile], { stdio: ['ignore', out, 'pipe', 'ipc'], execArgv, env, ...(execPath && { execPath }) });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderrs.get(child) ?? stderrs.set(child, []).get(child)!).push(chunk));
  closeSync(out);
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}: ${stderrOf(child)}`)));
  });
  child.removeAllListeners('exit');
  return wrap(kind === 'express' ? 'bare' : 'raw', child, `http://127.0.0.1:${port}`, logFile);
}

/** The driver's CPU per command, by kind (driver-cost.ts), in a process of its own on `execPath`. */
export async function measureDriverCosts(config: DriverCostConfig, configFile: string, execPath: string): Promise<DriverCosts> {
  writeFileSync(configFile, JSON.stringify(config));
  const child = spawn(execPath, [driverCostMain, configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  const err: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => out.push(chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => err.push(chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`driver-cost.js exited with ${code}: ${err.join('').slice(-4000)}`);
  return JSON.parse(out.join('')) as DriverCosts;
}

const stderrs = new WeakMap<ChildProcess, string[]>();

function stderrOf(child: ChildProcess): string {
  return (stderrs.get(child) ?? []).join('').slice(-4000);
}

function wrap(name: string, child: ChildProcess, url: string, logFile: string): Child {
  if (child.pid === undefined) throw new Error(`${name}: no pid`);
  let exited: Promise<void> | undefined;
  return {
    name,
    pid: child.pid,
    url,
    logFile,
    signal: (signal) => void child.kill(signal),
    stop: () =>
      (exited ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      })),
  };
}

async function waitUntilUp(child: ChildProcess, url: string, name: string, logFile: string): Promise<void> {
  const chunks: string[] = [];
  stderrs.set(child, chunks);
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => chunks.push(chunk));
  // An object: the exit is known only through the callback, which the compiler does not follow.
  const exited: { code: number | null } = { code: null };
  child.once('exit', (code) => (exited.code = code ?? -1));
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (exited.code !== null) {
      const log = safeRead(logFile).slice(-4000);
      throw new Error(`${name} exited with ${exited.code} before listening:\n${stderrOf(child)}\n${log}`);
    }
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet (seeding)
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not listen within 300 s`);
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Resident set size of a process in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

/** CPU seconds a process has used so far, every thread (Linux /proc: utime + stime). */
export function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // After "pid (comm) ": state is field 0, utime 11, stime 12, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** What the bench reads of a server process's `/metrics`. */
export interface ServerMetrics {
  /**
   * The MongoDB commands counted so far, by `command collection` (its
   * `loyalty_mongodb_commands_total`); null when it shows no such counter
   * (the embedded store, or a build without it).
   */
  commands: Map<string, number> | null;
  /**
   * Of those, the outbox sweep's, by `command collection` (its
   * `loyalty_outbox_sweep_commands_total`); empty when it shows none (no
   * sweep command yet, or a build without that counter: all its commands
   * are then the scenarios').
   */
  sweepCommands: Map<string, number>;
  /** Store calls so far at or under each bound, seconds (`loyalty_store_operation_duration_seconds`, every method). */
  storeCalls: Map<number, number>;
  /**
   * The event loop's 99th percentile delay since the last read of the
   * metrics (prom-client resets it on each read), in seconds beyond the
   * sampling interval (its minimum); null without it.
   */
  eventLoopDelayP99: number | null;
}

export async function metricsOf(child: Child): Promise<ServerMetrics> {
  if (!child.metricsUrl) throw new Error(`${child.name} serves no metrics`);
  const response = await fetch(child.metricsUrl);
  if (!response.ok) throw new Error(`${child.name}: ${child.metricsUrl} answered ${response.status}`);
  const text = await response.text();
  const counted = (counter: string) => [...text.matchAll(new RegExp(`^${counter}\\{command="([^"]*)",collection="([^"]*)"\\} (\\S+)$`, 'gm'))];
  const found = counted('loyalty_mongodb_commands_total');
  const storeCalls = new Map<number, number>();
  for (const m of text.matchAll(/^loyalty_store_operation_duration_seconds_bucket\{le="([^"]*)",method="[^"]*"\} (\S+)$/gm)) {
    const bound = m[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[1]);
    storeCalls.set(bound, (storeCalls.get(bound) ?? 0) + Number(m[2]));
  }
  const gauge = (name: string) => {
    const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
    return m ? Number(m[1]) : null;
  };
  const p99 = gauge('nodejs_eventloop_lag_p99_seconds');
  const min = gauge('nodejs_eventloop_lag_min_seconds');
  return {
    commands: found.length === 0 ? null : byKind(found),
    sweepCommands: byKind(counted('loyalty_outbox_sweep_commands_total')),
    storeCalls,
    eventLoopDelayP99: p99 === null || min === null ? null : Math.max(0, p99 - min),
  };
}

/** A counter's samples by `command collection`. */
function byKind(samples: RegExpMatchArray[]): Map<string, number> {
  return new Map(samples.map((m) => [`${m[1]} ${m[2]}`, Number(m[3])]));
}

/** Full garbage collections in a server started with `gcFile`, then resolves (at most 30 s). */
export async function collectGarbage(server: Child, gcFile: string): Promise<void> {
  const count = (): string => (existsSync(gcFile) ? readFileSync(gcFile, 'utf8') : '');
  const before = count();
  server.signal('SIGUSR2');
  const deadline = Date.now() + 30_000;
  while (count() === before) {
    if (Date.now() > deadline) throw new Error(`${server.name}: no garbage collection reported in ${gcFile}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The process listening on a local TCP port (Linux /proc), or null: the
 * database the bench runs against, when it runs on this machine, so that
 * its CPU shows beside the server's (a saturated database slows every answer).
 */
export function listenerPid(port: number): number | null {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of safeRead(table).split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is field 1 (ADDR:PORT), st is field 3 (0A: listening), inode field 9.
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A' && fields[9]) inodes.add(`socket:[${fields[9]}]`);
    }
  }
  if (inodes.size === 0) return null;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) if (inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return Number(pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return null;
}
