import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { childProcessEnv } from '../support/process-env';
import { problemsOfAnswer } from './support/answers';
import { keys, reliabilityFixture } from './support/fixture';
import { send, type RawRequest, type RawResponse } from './support/http';
import { startWorld } from './support/world';

/*
 * Graceful shutdown under load: every request the server has started on
 * finishes with its normal answer, then the server stops.
 *
 * 1. In process: startServer (main.ts) over a slow store (150 ms a call), so
 *    that every request is provably in flight when stop() is called.
 * 2. A real process (`node server/src/main.ts`, compiled on the fly by
 *    test/soak/register.cjs) sent a real SIGTERM in the middle of a load.
 * 3. A real process with SHUTDOWN_DELAY_MS, as a Kubernetes pod stops: not
 *    ready at once, new connections still answered through the delay, then
 *    the drain; a second signal ends the delay.
 */

jest.setTimeout(60_000);

const repoRoot = path.resolve(__dirname, '../..');

/** The server as its own process on the reliability fixture; resolves once it listens. */
async function spawnServer(env: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'reliability-'));
  const seedFile = path.join(dir, 'fixture.json');
  writeFileSync(seedFile, JSON.stringify(reliabilityFixture));
  const child = spawn(process.execPath, ['-r', path.join(repoRoot, 'test/soak/register.cjs'), path.join(repoRoot, 'server/src/main.ts')], {
    cwd: repoRoot,
    env: childProcessEnv({ PORT: '0', SEED_FILE: seedFile, LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0', NODE_ENV: 'production', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() })));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        lines.push(line);
        const match = /"url":"http:\/\/[^:]*:?[^:]*:(\d+)"/.exec(line) ?? /Listening on http:\/\/.*:(\d+)/.exec(line);
        if (match) resolve(`http://127.0.0.1:${match[1]}`);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    child.once('exit', () => reject(new Error(`server exited before listening:\n${lines.join('\n')}`)));
  });
  return { child, url, lines, exited };
}

/** A request on a connection of its own, as a new client (or a load balancer's probe) opens one. */
const onNewConnection = (base: string, req: RawRequest): Promise<RawResponse> => send(base, req, 5000, 'new');

function requestsFor(i: number, sessions: Record<string, string>): RawRequest {
  const member = ['m-alice', 'm-hh-1', 'm-bob'][i % 3]!;
  const auth = { 'x-api-key': keys.partner, authorization: `Bearer ${sessions[member]}`, 'content-type': 'application/json' };
  switch (i % 4) {
    case 0:
      return { method: 'PUT', path: `/client/users/${member}/reservations/rt-stop-${i}`, headers: auth, body: JSON.stringify({ reservationAmount: 10, offline: true }) };
    case 1:
      return { method: 'POST', path: `/client/users/${member}/sessions`, headers: { 'x-api-key': keys.partner, 'x-identifier-type': 'EMAIL' } };
    case 2:
      return { method: 'GET', path: `/client/users/${member}/voucher-definitions`, headers: auth };
    default:
      // Concurrent extensions of one reservation: the first writes, the others find nothing to change.
      return { method: 'PUT', path: `/client/users/m-alice/reservations/rt-alice-1`, headers: { ...auth, authorization: `Bearer ${sessions['m-alice']}` }, body: JSON.stringify({ reservationAmount: 10000, extendedExpiry: true }) };
  }
}

describe('graceful shutdown', () => {
  it('stop() during a load over a slow store: every request in flight completes with its 2xx, then new connections are refused', async () => {
    const world = await startWorld({ instances: 1 });
    try {
      const api = world.apis[0]!;
      const sessions: Record<string, string> = {};
      for (const member of ['m-alice', 'm-hh-1', 'm-bob']) sessions[member] = (await api.session(keys.partner, member)).sessionToken;

      world.latency.set({ minMs: 150, maxMs: 150 });
      world.calls.clear();
      const count = 40;
      const requests = Array.from({ length: count }, (_, i) => requestsFor(i, sessions));
      const pending = requests.map((req) => send(world.urls[0]!, req, 30_000));
      // Every request has reached the store (its credentials' lookup: the key, or the key of its sealed session), so all are in flight.
      const reached = () => (world.calls.get('findApiKey') ?? 0) + (world.calls.get('findApiKeyById') ?? 0);
      while (reached() < count) await new Promise((resolve) => setTimeout(resolve, 5));

      const stopping = world.running[0]!.stop();
      const responses = await Promise.all(pending);
      await stopping;

      expect(responses.map((r) => r.status).filter((s) => s >= 300)).toEqual([]);
      expect(responses.flatMap((res, i) => problemsOfAnswer(requests[i]!, res))).toEqual([]);
      await expect(send(world.urls[0]!, { method: 'GET', path: '/healthz' }, 2000)).rejects.toThrow(/ECONNREFUSED/);
      world.latency.set({ minMs: 0, maxMs: 0 });
      expect([...(await world.conservation()), ...(await world.audit()).problems]).toEqual([]);
    } finally {
      await world.close();
    }
  });

  it('SIGTERM to a real server process during a load: every answer it gives is a 2xx, and it exits 0', async () => {
    const { child, url, lines, exited } = await spawnServer({ SHUTDOWN_GRACE_MS: '10000' });
    try {
      const sessions: Record<string, string> = {};
      for (const member of ['m-alice', 'm-hh-1', 'm-bob']) {
        const res = await send(url, { method: 'POST', path: `/client/users/${member}/sessions`, headers: { 'x-api-key': keys.partner, 'x-identifier-type': 'CARD_NUMBER' } });
        sessions[member] = (res.json as { sessionToken: string }).sessionToken;
      }
      let signalledAt = Infinity;
      const outcomes: Array<{ req: RawRequest; res?: RawResponse; error?: string; endedAt: number }> = [];
      let sent = 0;
      const client = async () => {
        for (;;) {
          const i = sent++;
          if (i >= 3000) return;
          const req = requestsFor(i, sessions);
          try {
            const res = await send(url, req, 15_000);
            outcomes.push({ req, res, endedAt: Date.now() });
          } catch (error) {
            outcomes.push({ req, error: String(error), endedAt: Date.now() });
            return; // the server is gone for this client
          }
        }
      };
      const clients = Array.from({ length: 24 }, () => client());
      while (outcomes.length < 300) await new Promise((resolve) => setTimeout(resolve, 2));
      signalledAt = Date.now();
      child.kill('SIGTERM');
      await Promise.all(clients);
      const { code } = await exited;

      const answered = outcomes.filter((o) => o.res);
      expect(answered.flatMap((o) => problemsOfAnswer(o.req, o.res!))).toEqual([]);
      expect(answered.map((o) => o.res!.status).filter((s) => s >= 300)).toEqual([]);
      // The rest were refused or cut before an answer began (a new connection, or a
      // kept-alive one the server closed as idle): never an error answer.
      for (const o of outcomes.filter((x) => x.error)) expect(o.error).toMatch(/ECONNREFUSED|ECONNRESET|socket hang up|EPIPE/);
      expect(code).toBe(0);
      expect(lines.some((l) => l.includes('SIGTERM received'))).toBe(true);
      expect(lines.some((l) => l.includes('"msg":"Stopped"'))).toBe(true);
      expect(lines.some((l) => /cut/.test(l))).toBe(false);
      // Answers that came after the signal: requests in flight when it arrived.
      console.log(`SIGTERM: ${answered.length} answered (${answered.filter((o) => o.endedAt > signalledAt).length} after the signal), ${outcomes.length - answered.length} refused or cut before an answer`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('SHUTDOWN_DELAY_MS=3000, SIGTERM: /readyz 503 at once, new connections answered for the 3 s, then the drain and exit 0', async () => {
    const delayMs = 3000;
    const { child, url, lines, exited } = await spawnServer({ SHUTDOWN_DELAY_MS: String(delayMs), SHUTDOWN_GRACE_MS: '5000' });
    try {
      const session = await onNewConnection(url, { method: 'POST', path: '/client/users/m-alice/sessions', headers: { 'x-api-key': keys.partner, 'x-identifier-type': 'CARD_NUMBER' } });
      const listing: RawRequest = {
        method: 'GET',
        path: '/client/users/m-alice/voucher-definitions',
        headers: { 'x-api-key': keys.partner, authorization: `Bearer ${(session.json as { sessionToken: string }).sessionToken}` },
      };
      expect((await onNewConnection(url, { method: 'GET', path: '/readyz' })).status).toBe(200);

      const signalledAt = Date.now();
      child.kill('SIGTERM');
      // Probes sent one after the other from the signal on, each on a new connection, until one is refused readiness.
      const probes: Array<{ sentMs: number; status: number }> = [];
      while (probes.at(-1)?.status !== 503 && Date.now() - signalledAt < 2000) {
        const sentMs = Date.now() - signalledAt;
        probes.push({ sentMs, status: (await onNewConnection(url, { method: 'GET', path: '/readyz' })).status });
      }
      const lastReady = probes.filter((p) => p.status === 200).at(-1)?.sentMs ?? null;
      // Until shortly before the delay ends: every new connection is taken and answered.
      const answers: RawResponse[] = [];
      while (Date.now() - signalledAt < delayMs - 300) {
        answers.push(await onNewConnection(url, listing), await onNewConnection(url, { method: 'GET', path: '/readyz' }));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const { code, at } = await exited;

      console.log(
        `SHUTDOWN_DELAY_MS=${delayMs}: /readyz probes after SIGTERM (sent at ms: status) ${probes.map((p) => `${p.sentMs}: ${p.status}`).join(', ')}; ` +
          `${answers.length} answers on new connections during the delay; exit ${at - signalledAt} ms after the signal`,
      );
      // Not ready within 100 ms of the signal: no probe sent later than that was told 200.
      expect(probes.at(-1)?.status).toBe(503);
      expect(lastReady ?? 0).toBeLessThan(100);
      expect(answers.map((a) => a.status)).toEqual(answers.map((_, i) => (i % 2 === 0 ? 200 : 503)));
      expect(answers.length).toBeGreaterThanOrEqual(10);
      expect(at - signalledAt).toBeGreaterThanOrEqual(delayMs);
      expect(code).toBe(0);
      expect(lines.some((l) => l.includes(`not ready, still serving for ${delayMs} ms`))).toBe(true);
      expect(lines.some((l) => l.includes('"msg":"Stopped"'))).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('a second SIGTERM during the delay skips the rest of it: the drain begins and the process exits 0', async () => {
    const { child, url, lines, exited } = await spawnServer({ SHUTDOWN_DELAY_MS: '60000' });
    try {
      const signalledAt = Date.now();
      child.kill('SIGTERM');
      // More than a second later: a repeat within a second is taken for npm's copy of the first.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await onNewConnection(url, { method: 'GET', path: '/readyz' })).status).toBe(503);
      expect((await onNewConnection(url, { method: 'GET', path: '/healthz' })).status).toBe(200);
      child.kill('SIGTERM');
      const { code, at } = await exited;
      expect(code).toBe(0);
      expect(at - signalledAt).toBeLessThan(30_000);
      expect(lines.some((l) => l.includes('draining now, without the rest of the shutdown delay'))).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
