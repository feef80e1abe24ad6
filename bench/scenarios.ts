/**
 * What the bench asks: the sessions it starts before measuring, and each
 * scenario's requests, one after the other, each with the process of a fleet
 * it goes to (`via`, modulo the fleet's size).
 */
import { randomBytes } from 'node:crypto';
import type { BenchPlan, PlanMember } from './fixture';
import type { BenchRequest } from './loader';

export type ScenarioName = 'session' | 'session-again' | 'A' | 'A-304' | 'A-paced' | 'B' | 'B-shared' | 'B-fresh' | 'forged' | 'sign-out' | 'flood';

export interface Scenario {
  name: ScenarioName;
  label: string;
  /** The status every answer must have. */
  status: number;
  next(): BenchRequest;
  /** Before a run of `count` requests, outside its measurement: what they need made first (B-fresh's sessions). */
  prepare?(count: number): Promise<void>;
  /**
   * Reads its requests may renew, each at most once per 2 s (a process's
   * member kept 2 s from its read): how many members and processes, so
   * that the report allows one such read per member and process every 2 s.
   */
  renewedEvery2s?: number;
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

/**
 * Start Session for a member its process read less than 2 s before: the
 * last two members, each always on the same process (a member signing in
 * again, a second tab), 50 a second each at 100 requests a second. Each
 * process reads its member again once its read is 2 s old (the reads
 * `renewedEvery2s` allows); every other request finds it read.
 */
export function startSessionAgain(plan: BenchPlan): Scenario {
  const members = plan.members.slice(-2);
  let i = 0;
  return {
    name: 'session-again',
    label: 'Start Session for a member its process read less than 2 s before',
    status: 201,
    renewedEvery2s: members.length,
    next: () => {
      const m = i++ % members.length;
      const member = members[m]!;
      return startRequest(member.correlationId, plan.clients[member.client]!.apiKey, m);
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
      const request = listingRequest(plan, member, tokens[index]!);
      return { ...request, headers: { ...request.headers, ...(tags && { 'if-none-match': tags[member.client]! }) }, via: i++ };
    },
  };
}

/** Operation A's request for `member` with `token` (on process 0 unless told). */
function listingRequest(plan: BenchPlan, member: PlanMember, token: string): BenchRequest {
  return {
    method: 'GET',
    path: `/client/users/${member.correlationId}/voucher-definitions?businessUnit=${plan.businessUnit}`,
    headers: { 'x-api-key': plan.clients[member.client]!.apiKey, authorization: `Bearer ${token}` },
    via: 0,
  };
}

/** How far apart a session's uses are in A-paced: a member's page, now and then. */
export const pacedSpacingSeconds = 2.5;
/** A-paced: a session's uses before a new one takes its place (a member's visit: 20 s, four calls on each process). */
export const pacedUsesPerSession = 8;

/**
 * Operation A as members' pages call it: many sessions, each used once every
 * `pacedSpacingSeconds` at the scenario's rate, and each use on the other
 * process of the fleet than its last (slot s's u-th use goes to process
 * (s + u) mod 2, so half of every moment's sessions go to each). As many
 * slots as `rate` × the spacing; each slot's session serves
 * `pacedUsesPerSession` uses, then a new one (another member's) takes its
 * place, as members come and go: so that what a process pays for a session
 * it has not seen yet counts as often as pages bring new ones. The slots
 * take turns (slot s's sessions change at its uses k·8 − s mod 8), so that
 * an eighth of them change every 2.5 s and every run has its share. Every
 * session is started before the run that first uses it (outside the
 * measurement), on the process of its first use, for the members from
 * 1,500 on (other scenarios' wallets are not theirs). In a paired run
 * (`--compare`) each build gets half the rate, so its sessions' uses are
 * twice as far apart.
 */
export function operationAPaced(plan: BenchPlan, rate: number, startOn: StartOn, parallel = 16): Scenario {
  const count = Math.max(2, Math.round(rate * pacedSpacingSeconds));
  const first = Math.min(1500, plan.members.length - 1);
  const span = plan.members.length - first;
  /** Request n: its slot, its use of the slot, and which of the slot's sessions serves it (they change in turns: see above). */
  const at = (n: number) => {
    const slot = n % count;
    const use = Math.floor(n / count);
    return { slot, use, generation: Math.floor((use + (slot % pacedUsesPerSession)) / pacedUsesPerSession) };
  };
  /** The use of `slot` that its session `generation` serves first: the process it is started on. */
  const firstUse = (slot: number, generation: number) => Math.max(0, generation * pacedUsesPerSession - (slot % pacedUsesPerSession));
  const memberOf = (slot: number, generation: number) => plan.members[first + ((slot + generation * count) % span)]!;
  const keyOf = (slot: number, generation: number) => `${generation}:${slot}`;
  /** Sessions started and not yet left behind, by generation and slot. */
  const tokens = new Map<string, string>();
  let i = 0;
  return {
    name: 'A-paced',
    label: `Operation A, each session used once every ${pacedSpacingSeconds} s on either process in turn, ${pacedUsesPerSession} times`,
    status: 200,
    async prepare(requests) {
      const current = at(i).generation;
      for (const key of tokens.keys()) if (Number(key.split(':')[0]) < current - 1) tokens.delete(key);
      const needed = new Map<string, { member: PlanMember; via: number }>();
      for (let n = i; n < i + requests; n++) {
        const { slot, generation } = at(n);
        const key = keyOf(slot, generation);
        if (!tokens.has(key) && !needed.has(key)) {
          needed.set(key, { member: memberOf(slot, generation), via: slot + firstUse(slot, generation) });
        }
      }
      const started = await startAll([...needed.values()], startOn, plan, parallel);
      [...needed.keys()].forEach((key, k) => tokens.set(key, started[k]!));
    },
    next: () => {
      const { slot, use, generation } = at(i++);
      const token = tokens.get(keyOf(slot, generation));
      if (token === undefined) throw new Error('A-paced: a request without a session started for it (prepare first)');
      return { ...listingRequest(plan, memberOf(slot, generation), token), via: slot + use };
    },
  };
}

/** Loopback addresses of the forged tokens' requests (127.1.0.1 on), each sending this many. */
const requestsPerForgingAddress = 40;

/**
 * Operation A with a token the server never issued: every other request a
 * real member's token with one character changed (a different member and
 * place each time), the others a token of the new form (`st2.<kid>.`, the
 * kid of a real token, then random bytes as long as a real token's) that no
 * key sealed; each answered 401. Accepts either kind of token: of a build
 * that issues random tokens, the changed one is another random token.
 *
 * They come from loopback addresses of their own, 40 requests each: the
 * server counts refused credentials per client address
 * (AUTH_FAILURES_PER_MINUTE, 100 a minute and process), and past it would
 * look up no unknown credential of that address; so the refusals never
 * touch the other scenarios' address, and a build that reads unknown
 * tokens reads each of these as it reads a stranger's first ones.
 */
export function forgedTokens(plan: BenchPlan, tokens: string[]): Scenario {
  const sample = tokens[0] ?? '';
  const sealed = /^st2\.([A-Za-z0-9_-]+)\./.exec(sample);
  const kid = sealed?.[1] ?? 'k0';
  // Random bytes whose base64url is as long as a real sealed token's body (a random token's when none is sealed).
  const bodyLength = sealed ? sample.length - sealed[0].length : 200;
  const forged = () => `st2.${kid}.${randomBytes(Math.ceil((bodyLength * 3) / 4)).toString('base64url').slice(0, bodyLength)}`;
  let i = 0;
  return {
    name: 'forged',
    label: 'Operation A with a token the server did not issue, or a real one with one character changed: 401',
    status: 401,
    next: () => {
      const n = i++;
      const m = Math.floor(n / 2) % plan.members.length;
      const member = plan.members[m]!;
      const token = n % 2 === 0 ? changedCharacter(tokens[m]!, Math.floor(n / 2 / plan.members.length)) : forged();
      const address = Math.floor(n / requestsPerForgingAddress) % (254 * 254);
      return { ...listingRequest(plan, member, token), via: n, from: `127.1.${1 + Math.floor(address / 254)}.${1 + (address % 254)}` };
    },
  };
}

/**
 * `token` with one character changed: in its last part (a sealed token's
 * nonce, ciphertext and tag; all of a random one), never its last character,
 * at a place that moves with `round`, so the same token is never sent twice
 * in a while.
 */
function changedCharacter(token: string, round: number): string {
  const start = token.lastIndexOf('.') + 1;
  const span = token.length - 1 - start;
  const at = start + ((round * 37) % Math.max(1, span));
  return token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
}

/**
 * Sign-out: `DELETE .../sessions/current` with a session of its own, started
 * before its run (outside the measurement) on the process that then ends
 * it, for every member in turn; each answered 204.
 */
export function signOut(plan: BenchPlan, startOn: StartOn, parallel = 16): Scenario {
  const queued: Array<{ member: PlanMember; via: number; token: string }> = [];
  let started = 0;
  return {
    name: 'sign-out',
    label: 'Sign-out: DELETE sessions/current, a session of its own each',
    status: 204,
    async prepare(count) {
      const upcoming = Array.from({ length: count }, (_, k) => ({ member: plan.members[(started + k) % plan.members.length]!, via: started + k }));
      started += count;
      const tokens = await startAll(upcoming, startOn, plan, parallel);
      queued.splice(0, queued.length, ...upcoming.map((u, k) => ({ ...u, token: tokens[k]! })));
    },
    next: () => {
      const session = queued.shift();
      if (session === undefined) throw new Error('sign-out: a request without a session started for it (prepare first)');
      return {
        method: 'DELETE',
        path: `/client/users/${session.member.correlationId}/sessions/current`,
        headers: { 'x-api-key': plan.clients[session.member.client]!.apiKey, authorization: `Bearer ${session.token}` },
        via: session.via,
      };
    },
  };
}

/** A session for each of `sessions` on its process (`via`), `parallel` at a time: their tokens, in order. */
async function startAll(sessions: Array<{ member: PlanMember; via: number }>, startOn: StartOn, plan: BenchPlan, parallel: number): Promise<string[]> {
  const tokens = new Array<string>(sessions.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let k = next++; k < sessions.length; k = next++) {
      const { member, via } = sessions[k]!;
      tokens[k] = await startOn(via, member.correlationId, plan.clients[member.client]!.apiKey);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return tokens;
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
      fresh.splice(0, fresh.length, ...(await startAll(walk.peek(count), startOn, plan, parallel)));
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
