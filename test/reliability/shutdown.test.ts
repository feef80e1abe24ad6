import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../../server/src/test-support/time';
import { childProcessEnv } from '../support/process-env';
import { problemsOfAnswer } from '../support/answers';
import { keys, reliabilityFixture } from '../support/fixture';
import { send, type RawRequest, type RawResponse } from '../support/http';
import { startWorld } from '../support/world';

/*
 * Graceful shutdown under load: every request the server has started on
 * finishes with its normal answer, then the server stops.
 *
 * 1. In process: startServer (main.ts) over a store that holds every
 *    request's first call until the stop has begun: every request is
 *    provably in flight when stop() is called.
 * 2. A real process (`node server/src/main.ts`, compiled on the fly by
 *    test/soak/register.cjs) sent a real SIGTERM in the middle of a load.
 * 3. A real process with SHUTDOWN_DELAY_MS, as a Kubernetes pod stops: not
 *    ready at once, new connections still answered through the delay; a
 *    second signal ends the delay, then the drain. (The delay ending by
 *    itself is timed on a fake clock: server/src/http/startup.test.ts.)
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
  const exited = new Promise<{ code: number | null }>((resolve) => child.once('exit', (code) => resolve({ code })));
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
  it('stop() while every request waits on the store: every request in flight completes with its 2xx, then new connections are refused', async () => {
    const world = await startWorld({ instances: 1 });
    try {
      const api = world.apis[0]!;
      const sessions: Record<string, string> = {};
      for (const member of ['m-alice', 'm-hh-1', 'm-bob']) sessions[member] = (await api.session(keys.partner, member)).sessionToken;

      const release = world.latency.hold(['findApiKey', 'findApiKeyById']);
      const count = 40;
      const requests = Array.from({ length: count }, (_, i) => requestsFor(i, sessions));
      const pending = requests.map((req) => send(world.urls[0]!, req, 30_000));
      // Every request waits on the store (its credentials' lookup: the key, or the key of its sealed session), so all are in flight.
      await eventually('every request in flight', () => world.latency.held === count);

      const stopping = world.running[0]!.stop();
      // The drain has begun, with every request still waiting on the store.
      await expect(send(world.urls[0]!, { method: 'GET', path: '/healthz' }, 2000, 'new')).rejects.toThrow(/ECONNREFUSED/);
      release();
      const responses = await Promise.all(pending);
      await stopping;

      expect(responses.map((r) => r.status).filter((s) => s >= 300)).toEqual([]);
      expect(responses.flatMap((res, i) => problemsOfAnswer(requests[i]!, res))).toEqual([]);
      await expect(send(world.urls[0]!, { method: 'GET', path: '/healthz' }, 2000)).rejects.toThrow(/ECONNREFUSED/);
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
      let signalled = false;
      const outcomes: Array<{ req: RawRequest; res?: RawResponse; error?: string; afterSignal: boolean }> = [];
      let sent = 0;
      const client = async () => {
        for (;;) {
          const i = sent++;
          if (i >= 3000) return;
          const req = requestsFor(i, sessions);
          try {
            const res = await send(url, req, 15_000);
            outcomes.push({ req, res, afterSignal: signalled });
          } catch (error) {
            outcomes.push({ req, error: String(error), afterSignal: signalled });
            return; // the server is gone for this client
          }
        }
      };
      const clients = Array.from({ length: 24 }, () => client());
      await eventually('300 answers under load', () => outcomes.length >= 300, { timeoutMs: 30_000, intervalMs: 2 });
      signalled = true;
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
      console.log(`SIGTERM: ${answered.length} answered (${answered.filter((o) => o.afterSignal).length} after the signal), ${outcomes.length - answered.length} refused or cut before an answer`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('SHUTDOWN_DELAY_MS, SIGTERM: /readyz 503 at once, new connections answered through the delay; a second SIGTERM ends it: the drain, exit 0', async () => {
    const { child, url, lines, exited } = await spawnServer({ SHUTDOWN_DELAY_MS: '60000', SHUTDOWN_GRACE_MS: '5000' });
    try {
      const session = await onNewConnection(url, { method: 'POST', path: '/client/users/m-alice/sessions', headers: { 'x-api-key': keys.partner, 'x-identifier-type': 'CARD_NUMBER' } });
      const listing: RawRequest = {
        method: 'GET',
        path: '/client/users/m-alice/voucher-definitions',
        headers: { 'x-api-key': keys.partner, authorization: `Bearer ${(session.json as { sessionToken: string }).sessionToken}` },
      };
      const readyz: RawRequest = { method: 'GET', path: '/readyz' };
      expect((await onNewConnection(url, readyz)).status).toBe(200);

      child.kill('SIGTERM');
      // Probes on new connections from the signal on, until one is refused readiness.
      await eventually('/readyz 503 after the signal', async () => (await onNewConnection(url, readyz)).status === 503, { intervalMs: 1 });
      // This wait is the point of a real process's timing: a repeat of the signal within a
      // second, by the process's own clock, is taken for npm's copy of the first (main.ts),
      // so the second signal waits that second out. Meanwhile every new connection is taken and answered.
      const answers: RawResponse[] = [];
      const repeatWindowEnds = performance.now() + 1100;
      while (performance.now() < repeatWindowEnds) answers.push(await onNewConnection(url, listing), await onNewConnection(url, readyz));
      expect(answers.map((a) => a.status)).toEqual(answers.map((_, i) => (i % 2 === 0 ? 200 : 503)));
      expect(child.exitCode).toBeNull();
      expect(lines.some((l) => l.includes('"msg":"Stopped"'))).toBe(false);

      child.kill('SIGTERM');
      const { code } = await exited;
      console.log(`SHUTDOWN_DELAY_MS: ${answers.length} answers on new connections during the delay`);
      expect(code).toBe(0);
      expect(lines.some((l) => l.includes('not ready, still serving for 60000 ms'))).toBe(true);
      expect(lines.some((l) => l.includes('draining now, without the rest of the shutdown delay'))).toBe(true);
      expect(lines.some((l) => l.includes('"msg":"Stopped"'))).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
