/**
 * The load generator: an open-loop, paced loader. Request i is due at
 * start + i / rate whatever happened to the ones before (a slow answer never
 * slows the offer down), and its latency is counted from when it was due, so
 * a server that falls behind shows it in its p99 (no coordinated omission).
 * Keep-alive connections (node:http), at most `maxInFlight` requests
 * outstanding: a request due while that many wait is not sent, and counts
 * as offered but not answered.
 */
import { Agent, request as httpRequest } from 'node:http';
import { createHistogram, performance } from 'node:perf_hooks';

export interface BenchRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Which process of a fleet answers it: `via` modulo the fleet's size. */
  via: number;
  /**
   * The loopback address it comes from (127.x.y.z; default the system's
   * choice, 127.0.0.1): the server counts refused credentials per client
   * address, so a scenario of refusals sends them from addresses of its own.
   */
  from?: string;
}

export interface LoadResult {
  /** Requests due in the run (rate × seconds). */
  offered: number;
  /** Answered with the expected status. */
  answered: number;
  /** Every answer, by status; `error <code>` for a connection error or a timeout, `not sent` for the ones over `maxInFlight`. */
  statuses: Record<string, number>;
  /** Answers of any status (what the server processes had to serve). */
  responses: number;
  /** Milliseconds from when a request was due to its answer's end. */
  p50: number;
  p99: number;
  /** Wall time from the first request due to the last answer. */
  seconds: number;
}

export interface LoadOptions {
  rate: number;
  seconds: number;
  /** The status every answer should have. */
  status: number;
  maxInFlight?: number;
  timeoutMs?: number;
}

/** Connections per process, kept alive between runs. */
const agents = new Map<string, Agent>();

function agentFor(url: string): Agent {
  let agent = agents.get(url);
  if (!agent) agents.set(url, (agent = new Agent({ keepAlive: true, maxSockets: 64 })));
  return agent;
}

/** Closes the kept-alive connections (before the processes stop). */
export function closeConnections(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

export interface Answer {
  /** 0: no answer (`error` says why). */
  status: number;
  error?: string;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * One request; resolves with its answer (the body unless `discardBody`). A
 * kept-alive connection the server closed just as it was reused is retried
 * once on a new one (Node's documented remedy: the server never saw it).
 */
export async function send(url: string, request: BenchRequest, options: { timeoutMs?: number; discardBody?: boolean } = {}): Promise<Answer> {
  const answer = await sendOnce(url, request, options);
  return answer.error === 'ECONNRESET on a reused connection' ? sendOnce(url, request, options) : answer;
}

function sendOnce(url: string, request: BenchRequest, { timeoutMs = 10_000, discardBody = false }: { timeoutMs?: number; discardBody?: boolean }): Promise<Answer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const code = error.code ?? error.message;
      resolve({ status: 0, error: req.reusedSocket && code === 'ECONNRESET' ? `${code} on a reused connection` : code, headers: {}, body: Buffer.alloc(0) });
    };
    // The agent keeps the connections of each local address apart (its pool's key names it).
    const from = request.from === undefined ? {} : { localAddress: request.from };
    const req = httpRequest({ agent: agentFor(url), hostname, port, method: request.method, path: request.path, headers: request.headers, ...from }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => discardBody || chunks.push(chunk));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers[name] = value;
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
      res.on('error', failed);
    });
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
    req.on('error', failed);
    req.end(request.body);
  });
}

/** Offers `rate` requests a second for `seconds` to `urls` (a request goes to `urls[via % urls.length]`), and waits for every answer. */
export async function paced(urls: string[], next: () => BenchRequest, options: LoadOptions): Promise<LoadResult> {
  const { rate, seconds, status, maxInFlight = 256, timeoutMs = 10_000 } = options;
  const offered = Math.round(rate * seconds);
  const statuses: Record<string, number> = {};
  const count = (key: string) => (statuses[key] = (statuses[key] ?? 0) + 1);
  const latency = createHistogram();
  const pending = new Set<Promise<void>>();
  const start = performance.now();
  const dueAt = (i: number) => start + (i * 1000) / rate;

  const fire = (due: number) => {
    const request = next();
    if (pending.size >= maxInFlight) return count('not sent');
    const answered = send(urls[request.via % urls.length]!, request, { timeoutMs, discardBody: true }).then((response) => {
      latency.record(Math.max(1, Math.round((performance.now() - due) * 1000)));
      count(response.status === 0 ? `error ${response.error}` : String(response.status));
      pending.delete(answered);
    });
    pending.add(answered);
  };

  let i = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (i < offered && dueAt(i) <= now) fire(dueAt(i++));
      if (i < offered) setTimeout(tick, Math.max(0, dueAt(i) - performance.now()));
      else resolve();
    };
    tick();
  });
  await Promise.all(pending);
  const responses = Object.entries(statuses).reduce((sum, [key, n]) => (/^\d+$/.test(key) ? sum + n : sum), 0);
  return {
    offered,
    answered: statuses[String(status)] ?? 0,
    statuses,
    responses,
    p50: latency.count === 0 ? 0 : latency.percentile(50) / 1000,
    p99: latency.count === 0 ? 0 : latency.percentile(99) / 1000,
    seconds: (performance.now() - start) / 1000,
  };
}
