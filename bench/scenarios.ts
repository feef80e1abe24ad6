/**
 * What the bench asks: the sessions it starts before measuring, and each
 * scenario's requests, one after the other, each with the process of a fleet
 * it goes to (`via`, modulo the fleet's size).
 */
import type { BenchPlan } from './fixture';
import type { BenchRequest } from './loader';

export type ScenarioName = 'session' | 'A' | 'A-304' | 'B' | 'B-shared' | 'B-fresh' | 'flood';

export interface Scenario {
  name: ScenarioName;
  label: string;
  /** The status every answer must have. */
  status: number;
  next(): BenchRequest;
  /** Before a run of `count` requests, outside its measurement: what they need made first (B-fresh's sessions). */
  prepare?(count: number): Promise<void>;
}

/** Starts a session for a member on process `via` of a fleet (modulo its size); resolves with its token. */
export type StartOn = (via: number, correlationId: string, apiKey: string) => Promise<string>;

/** One session token per member, started with the member's client (not measured). */
export async function startSessions(url: string, plan: BenchPlan, parallel = 16): Promise<string[]> {
  const tokens: string[] = new Array<string>(plan.members.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < plan.members.length) {
      const index = next++;
      const member = plan.members[index]!;
      tokens[index] = await startOne(url, member.correlationId, plan.clients[member.client]!.apiKey);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return tokens;
}

/** A session of a member with a client's key, on the process at `url`: its token. */
export async function startOne(url: string, correlationId: string, apiKey: string): Promise<string> {
  const response = await fetch(`${url}/client/users/${encodeURIComponent(correlationId)}/sessions`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'x-identifier-type': 'CARD_NUMBER' },
  });
  const body = (await response.json()) as { sessionToken?: string };
  if (response.status !== 201 || !body.sessionToken) throw new Error(`session for ${correlationId}: ${response.status} ${JSON.stringify(body)}`);
  return body.sessionToken;
}

const startRequest = (correlationId: string, apiKey: string, via: number): BenchRequest => ({
  method: 'POST',
  path: `/client/users/${correlationId}/sessions`,
  headers: { 'x-api-key': apiKey, 'x-identifier-type': 'CARD_NUMBER' },
  via,
});

/** Start Session: each request as the next member, with the member's client (cycling over every key). */
export function startSession(plan: BenchPlan): Scenario {
  let i = 0;
  return {
    name: 'session',
    label: 'Start Session: POST sessions',
    status: 201,
    next: () => {
      const member = plan.members[i % plan.members.length]!;
      return startRequest(member.correlationId, plan.clients[member.client]!.apiKey, i++);
    },
  };
}

/** One client key past its limit: Start Session again and again with the flooding key. */
export function flood(plan: BenchPlan): Scenario {
  let i = 0;
  return {
    name: 'flood',
    label: 'Flood: Start Session from one key past its limit, refused',
    status: 429,
    next: () => startRequest(plan.members[i % plan.members.length]!.correlationId, plan.flood.apiKey, i++),
  };
}

/**
 * Operation A: the listing of the measured business unit, each request as the
 * next member (cycling over every member and so over every client key).
 * With `tags`, each request says `If-None-Match` with the tags its client
 * holds (`tags[client]`), and is answered 304: a listing fetched again.
 */
export function operationA(plan: BenchPlan, tokens: string[], tags?: string[]): Scenario {
  let i = 0;
  return {
    name: tags ? 'A-304' : 'A',
    label: tags ? 'Operation A again, If-None-Match with the tag held: 304' : `Operation A: GET voucher-definitions (${plan.listed} items)`,
    status: tags ? 304 : 200,
    next: () => {
      const index = i % plan.members.length;
      const member = plan.members[index]!;
      return {
        method: 'GET',
        path: `/client/users/${member.correlationId}/voucher-definitions?businessUnit=${plan.businessUnit}`,
        headers: {
          'x-api-key': plan.clients[member.client]!.apiKey,
          authorization: `Bearer ${tokens[index]}`,
          ...(tags && { 'if-none-match': tags[member.client]! }),
        },
        via: i++,
      };
    },
  };
}

/**
 * Operation B's members, per scenario: enough that concurrent requests never
 * share a wallet even when answers take seconds, few enough that each wallet
 * is changed again and again in a run (every 5 s at 100 requests a second),
 * as the comparison of one process and two changing a wallet needs. The two
 * B scenarios take different members, and so different wallets (a
 * household's partners are half the members apart).
 */
export const membersChangingWallets = 500;

/**
 * Operation B: each request lowers a different reservation by one point. The
 * order walks the members first and their reservations second, so that
 * concurrent requests touch different wallets, as independent checkouts
 * would: a wallet is changed again only after every other one of `members`
 * members' wallets (from `first` on). `wallets` says which process of a
 * fleet changes a wallet: always the same one (`one`), or each change the
 * other one (`alternate`). The amount sent is what the bench believes is stored
 * minus one (scenarios share the plan): a request that failed only makes the
 * next step bigger, never an increase.
 */
export function operationB(plan: BenchPlan, tokens: string[], wallets: 'one' | 'alternate', first = 0, members = membersChangingWallets): Scenario {
  return walkB(plan, wallets, first, members, (m) => tokens[m]!);
}

/**
 * Operation B, each request with a session of its own started just before
 * its run, on the process that then serves it (`startOn`), and used once:
 * a partner's checkout that starts a session and reserves at once. The
 * sessions are started by `prepare`, outside the measurement; the members
 * are a third range (after B's and B-shared's).
 */
export function operationBFresh(plan: BenchPlan, startOn: StartOn, parallel = 16): Scenario {
  const fresh: string[] = [];
  const walk = walkB(plan, 'one', 2 * membersChangingWallets, membersChangingWallets, () => {
    const token = fresh.shift();
    if (token === undefined) throw new Error('B-fresh: a request without a session started for it (prepare first)');
    return token;
  });
  return {
    ...walk,
    name: 'B-fresh',
    label: 'Operation B: the same, each request with a session its process has just started, used once',
    async prepare(count) {
      const upcoming = walk.peek(count);
      const tokens = new Array<string>(upcoming.length);
      let next = 0;
      const worker = async (): Promise<void> => {
        for (let k = next++; k < upcoming.length; k = next++) {
          const { member, via } = upcoming[k]!;
          tokens[k] = await startOn(via, member.correlationId, plan.clients[member.client]!.apiKey);
        }
      };
      await Promise.all(Array.from({ length: parallel }, worker));
      fresh.splice(0, fresh.length, ...tokens);
    },
  };
}

/** B's walk (see operationB), each request's session token from `tokenOf`; `peek` tells the next requests' members and processes. */
function walkB(plan: BenchPlan, wallets: 'one' | 'alternate', first: number, members: number, tokenOf: (member: number) => string) {
  const order: Array<[member: number, reservation: number]> = [];
  const walked = plan.members.slice(first, first + members);
  const most = Math.max(0, ...walked.map((m) => m.reservations.length));
  for (let r = 0; r < most; r++) {
    walked.forEach((member, m) => {
      if (r < member.reservations.length) order.push([first + m, r]);
    });
  }
  if (order.length === 0) throw new Error('the fixture has no reservations');
  const changes = new Map<number, number>();
  let i = 0;
  const viaOf = (member: { wallet: number }, changed: number) => (wallets === 'one' ? member.wallet : member.wallet + changed);
  return {
    name: wallets === 'one' ? ('B' as const) : ('B-shared' as const),
    label:
      wallets === 'one'
        ? 'Operation B: PUT reservation, lower by one point, each wallet by one process'
        : 'Operation B: the same, each wallet changed by one process and then the other',
    status: 200,
    next: (): BenchRequest => {
      const [m, r] = order[i++ % order.length]!;
      const member = plan.members[m]!;
      const reservation = member.reservations[r]!;
      reservation.amount -= 1;
      const changed = changes.get(member.wallet) ?? 0;
      changes.set(member.wallet, changed + 1);
      return {
        method: 'PUT',
        path: `/client/users/${member.correlationId}/reservations/${reservation.token}`,
        headers: { 'x-api-key': plan.clients[member.client]!.apiKey, authorization: `Bearer ${tokenOf(m)}`, 'content-type': 'application/json' },
        body: `{"reservationAmount":${reservation.amount}}`,
        via: viaOf(member, changed),
      };
    },
    peek: (count: number) =>
      Array.from({ length: count }, (_, k) => {
        const member = plan.members[order[(i + k) % order.length]![0]]!;
        return { member, via: viaOf(member, changes.get(member.wallet) ?? 0) };
      }),
  };
}
