/**
 * Soak: minutes of mixed traffic against two instances of the server over one
 * store, with periodic store outages, ending with a conservation check and
 * the counts. Not part of `npm test`; run it with `npm run test:soak`
 * (node + test/soak/register.cjs, no build needed).
 *
 * Environment:
 *   SOAK_SECONDS        traffic duration (default 180)
 *   SOAK_WORKERS        concurrent clients (default 16)
 *   SOAK_FAULT_EVERY    seconds between the starts of two outages (default 20)
 *   SOAK_FAULT_SECONDS  how long an outage lasts (default 2)
 *   SOAK_HOSTILE        0 to leave out hostile requests (default 1)
 *   SOAK_FAULT_PLANS    which outages, comma-separated, in turn (default all):
 *                       unreachable, after-write, wallet, slices, sessions
 *   SOAK_SEED           seed of every random choice (default 1)
 *   SOAK_CLOCK_SPEED    how fast the servers' clock runs (default 10: reservations
 *                       of 900 s expire after 90 s, so expiry is part of the run)
 *
 * Exits 1 (and says why) on: a 5xx that is not a 503 of an injected outage,
 * a 503 outside an outage, an answer that breaks the spec or leaks, a hang,
 * a point created or lost (balances, contributions, available < 0, a daily
 * cap passed, a confirmed reservation the store does not hold as confirmed),
 * an audit trail that does not account for every change, a credential in
 * the logs.
 */
import fc from 'fast-check';
import { problemsOfAnswer } from '../support/answers';
import { clientIds, identifierTypes, keys, type ReliabilityClient } from '../support/fixture';
import { anyBody, memberArb, reservationTokenArb, segment, serialize } from '../support/generators';
import { HangError, send, type RawRequest, type RawResponse } from '../support/http';
import { reservationKey } from '../support/invariants';
import { prng } from '../support/stores';
import { startWorld, type World } from '../support/world';
import type { FaultPlan } from '../../server/src/store/test-support/fault-injecting-store';

const seconds = Number(process.env.SOAK_SECONDS ?? 180);
const workerCount = Number(process.env.SOAK_WORKERS ?? 16);
const faultEvery = Number(process.env.SOAK_FAULT_EVERY ?? 20);
const faultSeconds = Number(process.env.SOAK_FAULT_SECONDS ?? 2);
const hostile = process.env.SOAK_HOSTILE !== '0';
const seed = Number(process.env.SOAK_SEED ?? 1);
const clockSpeed = Number(process.env.SOAK_CLOCK_SPEED ?? 10);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// --- bookkeeping ---------------------------------------------------------------

const byStatus = new Map<number, number>();
const byOperation = new Map<string, number>();
const problems = new Map<string, { count: number; example: string }>();
let requests = 0;
let injected503 = 0;
let hangs = 0;
let transportErrors = 0;

interface Window {
  from: number;
  until: number;
  plan: string;
}
const windows: Window[] = [];
let currentFault: Window | null = null;

function problem(kind: string, example: string): void {
  const seen = problems.get(kind);
  problems.set(kind, seen ? { ...seen, count: seen.count + 1 } : { count: 1, example: example.slice(0, 600) });
}

/** Whether [start, end] overlaps an outage (a request that began before it healed may still see it). */
function duringOutage(start: number, end: number): boolean {
  return windows.some((w) => start <= w.until && end >= w.from) || (currentFault !== null && end >= currentFault.from);
}

async function call(world: World, instance: number, operation: string, req: RawRequest): Promise<RawResponse | null> {
  const started = Date.now();
  requests++;
  byOperation.set(operation, (byOperation.get(operation) ?? 0) + 1);
  let res: RawResponse;
  try {
    res = await send(world.urls[instance]!, req, 15_000);
  } catch (error) {
    if (error instanceof HangError) {
      hangs++;
      problem('hang', error.message);
    } else {
      transportErrors++;
      problem(`transport error ${String(error).slice(0, 60)}`, `${req.method} ${req.path}`);
    }
    return null;
  }
  const ended = Date.now();
  byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
  const outage = duringOutage(started, ended);
  if (res.status === 503 && outage) injected503++;
  else if (res.status === 503) problem('503 outside an outage', `${req.method} ${req.path} ${res.text}`);
  const found = problemsOfAnswer(req, res, { allow503: outage });
  if (found.length > 0) {
    // One problem per answer, named by its first finding.
    const first = found[0]!.split('\n')[0]!.replace(/^\S+ \S+ -> /, `${req.method} <path> -> `).replace(/\d{2,}/g, 'N');
    problem(first.slice(0, 110), `${found.join(' | ').replace(/\s+/g, ' ').slice(0, 400)}\n      request: ${JSON.stringify({ ...req, body: req.body?.toString().slice(0, 200) })}`);
  }
  return res;
}

// --- workers ---------------------------------------------------------------------

interface Tracked {
  member: string;
  client: ReliabilityClient;
  /** Last amount the server confirmed with a 200; null: never confirmed (or uncertain). */
  confirmed: number | null;
  /** When it expires, by the servers' clock, as the last 200 said (reservationDuration). */
  expiresAt: number;
}
const tracked = new Map<string, Tracked>(); // `${client}|${member}|${token}`

const householdMembers = ['m-hh-1', 'm-hh-2', 'm-hh-3'];
const members = ['m-alice', 'm-bob', 'm-solo', ...householdMembers];

async function worker(world: World, w: number, deadline: number, hostileRequests: RawRequest[]): Promise<void> {
  const random = prng(seed * 1000 + w);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const instance = () => (random() < 0.5 ? 0 : 1);
  const client: ReliabilityClient = w % 5 === 4 ? 'capped' : w % 7 === 6 ? 'other' : 'partner';
  const sessions = new Map<string, { token: string; at: number }>();

  const sessionFor = async (member: string): Promise<string | null> => {
    const known = sessions.get(member);
    if (known && world.clock().getTime() - known.at < 300_000) return known.token;
    for (let attempt = 0; attempt < 50 && Date.now() < deadline + 10_000; attempt++) {
      const res = await call(world, instance(), 'start session', {
        method: 'POST',
        path: `/client/users/${member}/sessions`,
        headers: { 'x-api-key': keys[client], 'x-identifier-type': 'CARD_NUMBER' },
      });
      if (res?.status === 201) {
        const token = (res.json as { sessionToken: string }).sessionToken;
        sessions.set(member, { token, at: world.clock().getTime() });
        return token;
      }
      await sleep(50 + random() * 150);
    }
    return null;
  };

  /** PUT with retries after 503 (the spec says a 503 can be retried); returns the final answer. */
  const put = async (operation: string, member: string, token: string, body: unknown): Promise<RawResponse | null> => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const session = await sessionFor(member);
      if (!session) return null;
      const res = await call(world, instance(), operation, {
        method: 'PUT',
        path: `/client/users/${member}/reservations/${token}`,
        headers: { 'x-api-key': keys[client], authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res?.status === 401) sessions.delete(member);
      else if (res && res.status !== 503) return res;
      await sleep(50 + random() * 150);
    }
    return null;
  };

  let n = 0;
  while (Date.now() < deadline) {
    const roll = random();
    const member = pick(members);
    if (roll < 0.45) {
      // A reservation's life: create offline, lower once or twice, release.
      const token = `rt-soak-${w}-${n++}`;
      const key = reservationKey({ clientId: clientIds[client], correlationId: member, reservationToken: token });
      const entry: Tracked = { member, client, confirmed: null, expiresAt: 0 };
      const confirm = (res: RawResponse, amount: number) => {
        entry.confirmed = amount;
        entry.expiresAt = world.clock().getTime() + (res.json as { reservationDuration: number }).reservationDuration * 1000;
      };
      tracked.set(key, entry);
      const amount = 1 + Math.floor(random() * 300);
      const withItems = random() < 0.2 && member === 'm-alice';
      const created = await put(
        'create',
        member,
        token,
        withItems
          ? { offline: true, reservationAmount: amount + 2000, redemptionId: 'rd-100', redeemerId: 'm-alice', catalogueItems: [{ productCode: '0000000001' }] }
          : { offline: true, reservationAmount: amount, isExcludedFromCap: random() < 0.1 },
      );
      if (created?.status !== 200) continue;
      confirm(created, withItems ? amount + 2000 : amount);
      for (const target of [Math.floor(entry.confirmed! / 2), 0]) {
        if (random() < 0.03) break; // some are left to expire on their own
        const lowered = await put('lower', member, token, { reservationAmount: target, extendedExpiry: random() < 0.2 });
        if (lowered?.status !== 200) {
          // Only expiry may take an own reservation away (the clock runs fast; a retry may outlive it).
          if (world.clock().getTime() < entry.expiresAt - 1000) problem('a lowering of an own reservation failed', `${token}: ${lowered?.status} ${lowered?.text}`);
          break;
        }
        confirm(lowered, target);
      }
    } else if (roll < 0.5) {
      // Contention on the fixture's shared reservations (until they are released or expire).
      const [owner, token] = pick([
        ['m-hh-1', 'rt-hh-1'],
        ['m-hh-2', 'rt-hh-2'],
        ['m-alice', 'rt-alice-1'],
      ] as const);
      if (client !== 'partner') continue;
      await put('lower shared', owner, token, { reservationAmount: Math.floor(random() * 10000) });
    } else if (roll < 0.7) {
      await call(world, instance(), 'start session', {
        method: 'POST',
        path: `/client/users/${segment(random() < 0.1 ? 'm-nobody' : member)}/sessions`,
        headers: { 'x-api-key': keys[client], 'x-identifier-type': pick(identifierTypes) },
      });
    } else if (roll < 0.8) {
      const session = await sessionFor(member);
      if (!session) continue;
      await call(world, instance(), 'list vouchers', {
        method: 'GET',
        path: `/client/users/${member}/voucher-definitions${pick(['', '', '?businessUnit=LCL', '?businessUnit=SDM', '?businessUnit=XX'])}`,
        headers: { 'x-api-key': keys[client], authorization: `Bearer ${session}` },
      });
    } else if (roll < 0.85) {
      // Somebody else's session: must be refused.
      const other = pick(members.filter((m) => m !== member));
      const session = await sessionFor(other);
      if (!session) continue;
      const res = await call(world, instance(), 'foreign session', {
        method: 'PUT',
        path: `/client/users/${member}/reservations/rt-alice-1`,
        headers: { 'x-api-key': keys[client], authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: '{"reservationAmount":0}',
      });
      if (res && res.status !== 401 && res.status !== 503) problem('a foreign session was not refused', `${res.status} ${res.text}`);
    } else if (hostile && hostileRequests.length > 0) {
      const req = hostileRequests[Math.floor(random() * hostileRequests.length)]!;
      const session = await sessionFor('m-alice');
      if (!session) continue;
      // Hostile bodies and paths, with a real session of m-alice where the path is hers.
      const headers = { ...req.headers, 'x-api-key': keys.partner, authorization: `Bearer ${session}` };
      await call(world, instance(), 'hostile', { ...req, headers });
    }
  }
}

// --- outages ---------------------------------------------------------------------

async function faultLoop(world: World, deadline: number): Promise<void> {
  const random = prng(seed);
  const all: Array<{ id: string; name: string; plan: FaultPlan; afterSave?: boolean }> = [
    { id: 'unreachable', name: 'store unreachable', plan: { fault: 'unavailable' } },
    { id: 'after-write', name: 'store unreachable right after a wallet write', plan: { fault: 'unavailable' }, afterSave: true },
    { id: 'wallet', name: 'whole wallet reads and the changes after them fail', plan: { fault: 'unavailable', methods: ['loadWallet', 'saveReservationChange'] } },
    { id: 'slices', name: 'wallet slice reads and reservation changes fail', plan: { fault: 'unavailable', methods: ['loadWalletSlice', 'saveReservationChange'] } },
    { id: 'sessions', name: 'sessions fail', plan: { fault: 'unavailable', methods: ['findSession', 'insertSession'] } },
  ];
  const chosen = process.env.SOAK_FAULT_PLANS?.split(',').map((id) => id.trim());
  const plans = chosen ? all.filter((p) => chosen.includes(p.id)) : all;
  if (plans.length === 0) return;
  let i = 0;
  await sleep(Math.min(5, faultEvery / 2) * 1000);
  while (Date.now() + faultSeconds * 1000 < deadline) {
    const choice = plans[i++ % plans.length]!;
    if (choice.afterSave) await new Promise<void>((resolve) => world.spy.afterNextSave(() => { world.faults.inject(choice.plan); resolve(); }));
    else world.faults.inject(choice.plan);
    currentFault = { from: Date.now(), until: Infinity, plan: choice.name };
    const ready = await world.apis[i % 2]!.readyz();
    const pingFails = !choice.plan.methods;
    if (pingFails && ready.status !== 503) problem('/readyz not 503 during an outage', `${ready.status} ${ready.text}`);
    await sleep(faultSeconds * 1000 * (0.5 + random()));
    world.faults.inject(null);
    windows.push({ ...currentFault, until: Date.now() });
    currentFault = null;
    const healed = await world.apis[i % 2]!.readyz();
    if (healed.status !== 200) problem('/readyz not 200 after an outage', `${healed.status} ${healed.text}`);
    await sleep(Math.max(0, faultEvery - faultSeconds) * 1000 * (0.75 + random() / 2));
  }
}

// --- the run ------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = Date.now();
  const world = await startWorld({ instances: 2, clock: 'moving', clockSpeed, latency: { minMs: 0, maxMs: 2, seed } });
  const deadline = started + seconds * 1000;
  console.log(`soak: ${seconds} s, ${workerCount} clients, 2 instances over one in-process store, an outage of ~${faultSeconds} s every ~${faultEvery} s, hostile requests ${hostile ? 'on' : 'off'}, clock x${clockSpeed}, seed ${seed}`);

  const hostileRequests: RawRequest[] = hostile
    ? fc.sample(
        fc.record({ member: memberArb, token: reservationTokenArb, body: anyBody }).map(({ member, token, body }) => ({
          method: 'PUT',
          path: `/client/users/${segment(member)}/reservations/${segment(token)}`,
          headers: { 'content-type': 'application/json' },
          body: serialize(body),
        })),
        { numRuns: 3000, seed },
      )
    : [];

  // Conservation is checked every second while traffic runs, not only at the end.
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      for (const p of await world.conservation()) problem(`while running: ${p.replace(/\d+/g, 'N')}`, p);
      await sleep(1000);
    }
  })();
  const progress = setInterval(() => {
    const elapsed = Math.round((Date.now() - started) / 1000);
    console.log(`  ${elapsed} s: ${requests} requests, ${[...byStatus].sort().map(([s, c]) => `${s}:${c}`).join(' ')}`);
  }, 15_000);

  await Promise.all([...Array.from({ length: workerCount }, (_, w) => worker(world, w, deadline, hostileRequests)), faultLoop(world, deadline)]);
  clearInterval(progress);
  sampling = false;
  await sampler;
  world.faults.inject(null);

  // --- final checks ---
  const conservation = await world.conservation();
  for (const p of conservation) problem(`at the end: ${p.replace(/\d+/g, 'N')}`, p);
  const audit = await world.audit();
  for (const p of audit.problems) {
    const kind = /broken chain/.test(p) ? 'broken chain (a lost update, or a change missing before others)' : /never audited/.test(p) ? 'a stored reservation never audited' : 'a change without its audit entry';
    problem(`audit: ${kind}`, p);
  }
  const wallets = await world.wallets();
  let confirmedChecked = 0;
  for (const [key, entry] of tracked) {
    if (entry.confirmed === null) continue;
    const stored = [...wallets.values()].flatMap((wallet) => wallet?.reservations ?? []).find((r) => reservationKey(r) === key);
    const now = world.clock().getTime();
    if (now >= entry.expiresAt - 1000) continue; // expired (or about to): dropped by the next write of its wallet
    confirmedChecked++;
    if (stored && stored.reservationAmount !== entry.confirmed) problem('a confirmed reservation is not as confirmed (lost update)', `${key}: confirmed ${entry.confirmed}, stored ${stored.reservationAmount}`);
    if (!stored) problem('a confirmed reservation is missing (lost update)', `${key}: confirmed ${entry.confirmed}`);
  }
  const largestWallet = Math.max(...[...wallets.values()].map((wallet) => wallet?.reservations.length ?? 0));
  for (const v of world.spy.violations) problem(`store argument: ${v.slice(0, 80)}`, v);
  for (const line of world.logs.credentialLeaks) problem('a credential in the logs', line);
  await world.close();

  // --- report ---
  const statusLine = [...byStatus].sort(([a], [b]) => a - b).map(([s, c]) => `${s}: ${c}`).join(', ');
  const errorLine = [...byStatus].filter(([s]) => s >= 400).sort(([a], [b]) => a - b).map(([s, c]) => `${s}: ${c}`).join(', ');
  const unexpected5xx = [...byStatus].filter(([s]) => s >= 500).reduce((sum, [, c]) => sum + c, 0) - injected503;
  console.log('\n=== soak result ===');
  console.log(`duration             ${Math.round((Date.now() - started) / 1000)} s`);
  console.log(`requests             ${requests} (${Math.round(requests / seconds)}/s): ${[...byOperation].map(([o, c]) => `${o} ${c}`).join(', ')}`);
  console.log(`by status            ${statusLine}`);
  console.log(`errors by status     ${errorLine}`);
  console.log(`outages injected     ${windows.length}: ${windows.map((w) => `${w.plan} ${((w.until - w.from) / 1000).toFixed(1)} s`).join('; ')}`);
  console.log(`503 during outages   ${injected503}`);
  console.log(`unexpected 5xx       ${unexpected5xx}`);
  console.log(`hangs / transport    ${hangs} / ${transportErrors}`);
  console.log(`points moved         ${audit.reserved + audit.returned} (reserved ${audit.reserved}, returned ${audit.returned}) in ${audit.entries} audited changes`);
  console.log(`reservations checked ${confirmedChecked} confirmed by a 200, against the store`);
  console.log(`largest wallet       ${largestWallet} reservations (released ones stay until they expire)`);
  console.log(`conservation         ${conservation.length === 0 ? 'points conserved: balances unchanged, every reservation fully funded, nothing negative, caps kept' : `VIOLATED (${conservation.length})`}`);
  console.log(`audit trail          ${audit.problems.length === 0 ? 'accounts for every change' : `INCOMPLETE (${audit.problems.length} problems)`}`);
  if (problems.size > 0) {
    console.log(`\nFAILED: ${problems.size} kinds of problem`);
    for (const [kind, { count, example }] of [...problems].sort((a, b) => b[1].count - a[1].count)) console.log(`  ${count} x ${kind}\n      e.g. ${example.replace(/\n/g, '\n      ')}`);
    process.exitCode = 1;
  } else {
    console.log('\nPASSED');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
