import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { eventually } from '../../server/src/test-support/time';
import { childProcessEnv } from '../support/process-env';

/*
 * `npm start` as an operator or a process manager runs it: the real npm, the
 * real build, the embedded store with the demo data. A signal to npm (or a
 * terminal's Ctrl+C to its whole process group) drains the request in flight,
 * then everything exits 0 and nothing is left holding the port.
 */

jest.setTimeout(120_000);

const repoRoot = path.resolve(__dirname, '../..');
const demoKey = 'demo_secret_partner_app_0001';

interface Started {
  npm: ChildProcessWithoutNullStreams;
  /** The server's own process, from its log lines. */
  serverPid: number;
  port: number;
  /** Its metrics' port of its own (METRICS_PORT=0, as every test gives it), from the log line after `Listening on`. */
  metricsPort: number;
  output: string[];
  exited: Promise<number | null>;
}

/** `npm start` on a free port, in its own process group (as a terminal session would have it). */
async function npmStart(): Promise<Started> {
  const npm = spawn('npm', ['start'], {
    cwd: repoRoot,
    env: childProcessEnv({ PORT: '0', LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: '10000' }),
    detached: true,
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  const listening = await new Promise<{ port: number; serverPid: number; metricsPort: number }>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      const line = /\{[^\n]*"msg":"Listening on http:\/\/[^\n]*:(\d+)"[^\n]*\}/.exec(output.join(''));
      const metrics = /"msg":"Metrics on http:\/\/[^\n]*:(\d+)\/metrics"/.exec(output.join(''));
      if (line && metrics) resolve({ port: Number(line[1]), serverPid: (JSON.parse(line[0]) as { pid: number }).pid, metricsPort: Number(metrics[1]) });
    };
    npm.stdout.on('data', onData);
    npm.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    void exited.then((code) => reject(new Error(`npm start exited (${code}) before listening:\n${output.join('')}`)));
  });
  return { npm, exited, output, ...listening };
}

/**
 * Operation B with a body that arrives in two parts: between them the request
 * is in flight, and stays so until `finish` sends the rest. `taken` resolves
 * once the server has taken the request (its `100 Continue`, which Node's
 * server sends as it hands the request to the app).
 */
function slowUpdate(port: number, token: string): { taken: Promise<void>; answer: Promise<{ status: number; body: string }>; finish: () => void } {
  const body = JSON.stringify({ reservationAmount: 7500 });
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'PUT',
    path: '/client/users/m-alice/reservations/rt-alice-1',
    headers: {
      'x-api-key': demoKey,
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      expect: '100-continue',
    },
  });
  const taken = new Promise<void>((resolve) => req.once('continue', resolve));
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  void taken.then(() => req.write(body.slice(0, 10)));
  return { taken, answer, finish: () => req.end(body.slice(10)) };
}

async function sessionToken(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/client/users/m-alice/sessions`, {
    method: 'POST',
    headers: { 'x-api-key': demoKey, 'x-identifier-type': 'CARD_NUMBER' },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { sessionToken: string }).sessionToken;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('npm start', () => {
  it.each([
    ['SIGTERM to the npm process (a process manager stopping it by pid)', (npm: ChildProcessWithoutNullStreams) => process.kill(npm.pid!, 'SIGTERM'), 'SIGTERM'],
    ["SIGINT to npm's whole process group (Ctrl+C in a terminal)", (npm: ChildProcessWithoutNullStreams) => process.kill(-npm.pid!, 'SIGINT'), 'SIGINT'],
  ])('%s: the request in flight completes, then npm and the server exit 0 and its ports are free', async (_case, signal, name) => {
    const started = await npmStart();
    try {
      expect(started.metricsPort).not.toBe(started.port);
      expect((await fetch(`http://127.0.0.1:${started.metricsPort}/metrics`)).status).toBe(200);
      const inFlight = slowUpdate(started.port, await sessionToken(started.port));
      await inFlight.taken;

      signal(started.npm);
      // The server is draining, its request still in flight.
      await eventually('the drain to begin', () => started.output.join('').includes('waiting up to 10000 ms for requests in flight'), { timeoutMs: 30_000 });
      expect(await refusesConnections(started.port)).toBe(true);
      inFlight.finish();

      expect((await inFlight.answer).status).toBe(200);
      expect(await started.exited).toBe(0);
      const log = started.output.join('');
      expect(log).toContain(`"msg":"${name} received"`);
      expect(log).toContain('"msg":"Stopped"');
      expect(log).not.toMatch(/received again|cut|Shutdown failed/);
      expect(isRunning(started.serverPid)).toBe(false);
      expect(await refusesConnections(started.port)).toBe(true);
      expect(await refusesConnections(started.metricsPort)).toBe(true);
    } finally {
      // Whatever happened above, leave nothing running.
      try {
        process.kill(-started.npm.pid!, 'SIGKILL');
      } catch {
        // Already gone, as it should be.
      }
    }
  });
});
