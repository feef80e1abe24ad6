/**
 * The load: sessions, the two operations as autocannon requests, and one
 * measurement (autocannon in this process, the target in its own).
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { BenchPlan } from './fixture';

export const connections = 32;

/** One session token per member, started with the member's client (not measured). */
export async function startSessions(url: string, plan: BenchPlan, parallel = 16): Promise<string[]> {
  const tokens: string[] = new Array<string>(plan.members.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < plan.members.length) {
      const index = next++;
      const member = plan.members[index]!;
      const response = await fetch(`${url}/client/users/${encodeURIComponent(member.correlationId)}/sessions`, {
        method: 'POST',
        headers: { 'x-api-key': plan.clients[member.client]!.apiKey, 'x-identifier-type': 'CARD_NUMBER' },
      });
      const body = (await response.json()) as { sessionToken?: string };
      if (response.status !== 201 || !body.sessionToken) {
        throw new Error(`session for ${member.correlationId}: ${response.status} ${JSON.stringify(body)}`);
      }
      tokens[index] = body.sessionToken;
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return tokens;
}

export interface Operation {
  name: 'A' | 'B';
  label: string;
  request: autocannon.Request;
  /** One request's parameters, as the next autocannon request would send it (for captures and checks). */
  next(): Required<Pick<autocannon.RequestParams, 'method' | 'path' | 'headers'>> & { body?: string };
}

/**
 * Operation A: the listing of the measured business unit, each request as the
 * next member (cycling over every member and so over every client key).
 */
export function operationA(plan: BenchPlan, tokens: string[]): Operation {
  let i = 0;
  const next = () => {
    const index = i++ % plan.members.length;
    const member = plan.members[index]!;
    return {
      method: 'GET',
      path: `/client/users/${member.correlationId}/voucher-definitions?businessUnit=${plan.businessUnit}`,
      headers: { 'x-api-key': plan.clients[member.client]!.apiKey, authorization: `Bearer ${tokens[index]}` },
    };
  };
  return {
    name: 'A',
    label: `Operation A: GET voucher-definitions (${plan.listed} items)`,
    next,
    request: { setupRequest: (request) => Object.assign(request, next()) },
  };
}

/**
 * Operation B: each request lowers a different reservation by one point. The
 * order walks the members first (member i, then i + 1, ...) and their
 * reservations second, so that concurrent requests touch different wallets,
 * as independent checkouts would; after every reservation has been lowered
 * once, it starts over one point lower. The amount sent is what the bench
 * believes is stored minus one: a request that failed only makes the next
 * step bigger, never an increase.
 */
export function operationB(plan: BenchPlan, tokens: string[]): Operation {
  const order: Array<[member: number, reservation: number]> = [];
  const most = Math.max(0, ...plan.members.map((m) => m.reservations.length));
  for (let r = 0; r < most; r++) {
    plan.members.forEach((member, m) => {
      if (r < member.reservations.length) order.push([m, r]);
    });
  }
  if (order.length === 0) throw new Error('the fixture has no reservations');
  let i = 0;
  const next = () => {
    const [m, r] = order[i++ % order.length]!;
    const member = plan.members[m]!;
    const reservation = member.reservations[r]!;
    reservation.amount -= 1;
    return {
      method: 'PUT',
      path: `/client/users/${member.correlationId}/reservations/${reservation.token}`,
      headers: {
        'x-api-key': plan.clients[member.client]!.apiKey,
        authorization: `Bearer ${tokens[m]}`,
        'content-type': 'application/json',
      },
      body: `{"reservationAmount":${reservation.amount}}`,
    };
  };
  return {
    name: 'B',
    label: 'Operation B: PUT reservation, lower by one point',
    next,
    request: { setupRequest: (request) => Object.assign(request, next()) },
  };
}

export interface Measurement {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx responses, connection errors and timeouts. */
  failed: number;
  statusCodes: Record<string, number>;
  /** CPU the target process used, in cores (1 = one core saturated). */
  targetCpu: number;
  /** CPU this process (the load generator) used, in cores. */
  loaderCpu: number;
}

/** CPU seconds a process has used so far (Linux /proc, user + system). */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // After "pid (comm) ": state is field 0, utime 11, stime 12, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function measure(
  target: { url: string; pid: number },
  operation: Operation,
  run: { duration?: number; amount?: number },
): Promise<Measurement> {
  const targetBefore = cpuSecondsOf(target.pid);
  const loaderBefore = process.cpuUsage();
  const result = await autocannon({
    url: target.url,
    connections,
    pipelining: 1,
    timeout: 10,
    ...(run.amount ? { amount: run.amount } : { duration: run.duration ?? 10 }),
    // Each connection gets its own request object: autocannon builds a
    // connection's first request up front, and with one shared object all
    // connections would start with the same (last built) request.
    setupClient: (client) => client.setRequests([{ ...operation.request }]),
  });
  const requests = result.requests.total ?? 0;
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stats]) => [code, stats.count]));
  const loader = process.cpuUsage(loaderBefore);
  return {
    targetCpu: (cpuSecondsOf(target.pid) - targetBefore) / result.duration,
    loaderCpu: (loader.user + loader.system) / 1e6 / result.duration,
    requests,
    seconds: result.duration,
    rps: requests / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    statusCodes,
  };
}

/** Sends one request outside autocannon (captures and sanity checks). */
export async function sendOnce(url: string, request: ReturnType<Operation['next']>) {
  const response = await fetch(`${url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { status: response.status, headers, body };
}
