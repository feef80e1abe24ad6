import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { RunningServer } from '../../server/src/main';
import { serverVersion } from '../../server/src/version';
import { demoFixturePath } from '../../server/src/features/load/read-fixture';
import { dropTestDatabase, testMongoSource, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';
import { loopbackUrl, startTestApp } from '../../server/src/test-support/app-harness';
import { childProcessEnv } from '../support/process-env';

/*
 * `/metrics` of the real process wiring (main's own buildDeps: the embedded
 * store with the demo data), after some traffic. It is served on a port of
 * its own, never the API's: the harness gives each instance a free one
 * (METRICS_PORT=0; the default, 9464, is config.test.ts's), and so does
 * every test that starts server processes.
 */

const key = 'demo_secret_partner_app_0001';

type Started = RunningServer & { base: string; metrics: string };

/** main's own wiring from `env`: a limit of 20 a minute, metrics on unless `env` says otherwise; `metrics`: its `/metrics` URL ('' with none). */
async function start(env: Record<string, string> = {}): Promise<Started> {
  const app = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '20', LOG_LEVEL: 'silent', ...env } });
  return { ...app.running[0]!, base: app.baseUrl, metrics: app.metricsUrls[0] ?? '', stop: () => app.close() };
}

async function traffic(base: string): Promise<string> {
  const session = await fetch(`${base}/client/users/m-alice/sessions`, { method: 'POST', headers: { 'x-api-key': key, 'x-identifier-type': 'CARD_NUMBER' } });
  const { sessionToken } = (await session.json()) as { sessionToken: string };
  const member = { 'x-api-key': key, authorization: `Bearer ${sessionToken}` };
  const put = (token: string, body: unknown) =>
    fetch(`${base}/client/users/m-alice/reservations/${token}`, { method: 'PUT', headers: { ...member, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect((await fetch(`${base}/client/users/m-alice/voucher-definitions`, { headers: member })).status).toBe(200);
  expect((await put('rt-alice-1', { reservationAmount: 7500 })).status).toBe(200);
  expect((await put('rt-metrics-new', { reservationAmount: 1200, offline: true })).status).toBe(200);
  expect((await fetch(`${base}/client/users/m-alice/voucher-definitions`, { headers: { 'x-api-key': key } })).status).toBe(401);
  // Past the limit of 20 a minute: at least one 429.
  const statuses = [];
  for (let i = 0; i < 20; i++) statuses.push((await fetch(`${base}/client/users/m-alice/voucher-definitions`, { headers: member })).status);
  expect(statuses).toContain(429);
  return sessionToken;
}

function corsHeaderNames(response: Response): string[] {
  const names: string[] = [];
  response.headers.forEach((_value, name) => names.push(name));
  return names.filter((name) => name.startsWith('access-control-'));
}

/** The value of one sample line, e.g. `loyalty_points_returned_total 2500`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  let running: Started;
  afterEach(() => running.stop());

  it('shows requests, latencies, store calls, rate-limit refusals, points and the process, with no member, token or key in it', async () => {
    running = await start();
    const token = await traffic(running.base);
    const response = await fetch(running.metrics);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();

    expect(sample(text, 'loyalty_http_requests_total{operation="startSession",status="201"}')).toBe(1);
    expect(sample(text, 'loyalty_http_requests_total{operation="updateReservation",status="200"}')).toBe(2);
    expect(sample(text, 'loyalty_http_requests_total{operation="listVoucherDefinitions",status="401"}')).toBe(1);
    expect(sample(text, 'loyalty_http_requests_total{operation="listVoucherDefinitions",status="429"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'loyalty_http_request_duration_seconds_count{operation="updateReservation"}')).toBe(2);
    expect(sample(text, 'loyalty_http_request_duration_seconds_bucket{le="+Inf",operation="updateReservation"}')).toBe(2);
    expect(sample(text, 'loyalty_store_operation_duration_seconds_count{method="saveReservationChange"}')).toBeGreaterThanOrEqual(1);
    // The sealed session is opened, not read: the key that started it is (the embedded store keeps nothing).
    expect(sample(text, 'loyalty_store_operation_duration_seconds_count{method="findApiKeyById"}')).toBeGreaterThanOrEqual(20);
    expect(sample(text, 'loyalty_rate_limit_rejections_total{limit="key"}')).toBe(sample(text, 'loyalty_http_requests_total{operation="listVoucherDefinitions",status="429"}'));
    // 10000 -> 7500 gave back 2500; the creation took 1200.
    expect(sample(text, 'loyalty_points_returned_total')).toBe(2500);
    expect(sample(text, 'loyalty_points_reserved_total')).toBe(1200);
    expect(sample(text, 'loyalty_store_reachable')).toBe(1);
    expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, `loyalty_build_info{version="${serverVersion()}",node_version="${process.versions.node}"}`)).toBe(1);
    // The listing is built once, then answered from what the process keeps (the definitions did not change).
    expect(sample(text, 'loyalty_cache_lookups_total{cache="listings",result="miss"}')).toBe(1);
    expect(sample(text, 'loyalty_cache_lookups_total{cache="listings",result="hit"}')).toBeGreaterThanOrEqual(1);

    for (const secret of [token, key, 'm-alice', 'rt-alice-1', 'rt-metrics-new', 'partner-app']) expect(text).not.toContain(secret);
  });

  it("is served on a port of its own, with nothing else and no CORS header; on the API's port /metrics is the documented 404", async () => {
    running = await start();
    expect(running.metricsUrl).toBeDefined();
    expect(new URL(running.metricsUrl!).port).not.toBe(new URL(running.base).port);
    // Even from the origin of a live publishable key (the demo's), which the API itself answers with CORS.
    const origin = { origin: 'http://127.0.0.1:5173' };
    const own = await fetch(running.metrics, { headers: origin });
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('loyalty_http_requests_total');
    expect(corsHeaderNames(own)).toEqual([]);
    expect((await fetch(`${loopbackUrl(running.metricsUrl!)}/client/users/m-alice/sessions`)).status).toBe(404);

    const beside = await fetch(`${running.base}/metrics`, { headers: origin });
    expect(beside.status).toBe(404);
    expect(await beside.json()).toEqual({ statusCode: 404, errorCode: 'NOT_FOUND', errorMessage: 'Resource not found' });
    expect(corsHeaderNames(beside)).toEqual([]);
  });

  it('gives each instance on one host a port of its own, each counting its own requests', async () => {
    const fleet = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent' }, instances: 2 });
    running = { ...fleet.running[0]!, base: fleet.baseUrl, metrics: fleet.metricsUrls[0]!, stop: () => fleet.close() };
    expect(fleet.metricsUrls).toHaveLength(2);
    expect(new Set(fleet.metricsUrls).size).toBe(2);
    await fetch(`${fleet.urls[1]!}/client/users/m-alice/voucher-definitions`, { headers: { 'x-api-key': key } });
    const [first, second] = await Promise.all(fleet.metricsUrls.map(async (url) => (await fetch(url)).text()));
    expect(sample(first!, 'loyalty_http_requests_total{operation="listVoucherDefinitions",status="401"}')).toBeUndefined();
    expect(sample(second!, 'loyalty_http_requests_total{operation="listVoucherDefinitions",status="401"}')).toBe(1);
  });

  it('fails to start when the metrics port is taken, leaving the API port free again', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const metricsPort = (taken.address() as AddressInfo).port;
    const apiPort = await freePort();
    try {
      await expect(start({ PORT: String(apiPort), METRICS_PORT: String(metricsPort) })).rejects.toMatchObject({ code: 'EADDRINUSE', port: metricsPort });
      // The API listener opened first was closed again: its port can be taken.
      const again = createServer();
      await new Promise<void>((resolve, reject) => again.once('error', reject).listen(apiPort, resolve));
      await new Promise((resolve) => again.close(resolve));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('is not served with METRICS=off, and no metrics port is opened', async () => {
    running = await start({ METRICS: 'off' });
    expect(running.metricsUrl).toBeUndefined();
    expect((await fetch(`${running.base}/metrics`)).status).toBe(404);
  });
});

describe('server processes on one host', () => {
  jest.setTimeout(60_000);

  /** `node server/src/main.ts` (compiled on the fly), METRICS_PORT=0 as every test gives it; the URLs of its first log lines. */
  function spawnServer() {
    const repoRoot = path.resolve(__dirname, '../..');
    const child = spawn(process.execPath, ['-r', path.join(repoRoot, 'test/soak/register.cjs'), path.join(repoRoot, 'server/src/main.ts')], {
      cwd: repoRoot,
      env: childProcessEnv({ PORT: '0', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0' }),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: Array<Record<string, unknown>> = [];
    const urls = new Promise<{ api: string; metrics: string }>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(JSON.parse(line) as Record<string, unknown>);
        const api = lines.find((logged) => typeof logged.url === 'string')?.url as string | undefined;
        const metrics = lines.find((logged) => typeof logged.metricsUrl === 'string')?.metricsUrl as string | undefined;
        if (api && metrics) resolve({ api: loopbackUrl(api), metrics: `${loopbackUrl(metrics)}/metrics` });
      });
      child.once('exit', (code) => reject(new Error(`the server exited (${code}) before naming its ports`)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    return { urls, lines, stop: () => (child.kill('SIGTERM'), exited) };
  }

  it('each serves its metrics on a port of its own, named in its first log lines, and counts its own requests', async () => {
    const servers = [spawnServer(), spawnServer()];
    try {
      const [one, two] = await Promise.all(servers.map((server) => server.urls));
      expect(new Set([one!.api, one!.metrics, two!.api, two!.metrics].map((url) => new URL(url).port)).size).toBe(4);
      for (const server of servers) {
        const messages = server.lines.map((line) => line.msg as string);
        expect(messages.findIndex((msg) => msg.startsWith('Metrics on http://'))).toBe(messages.findIndex((msg) => msg.startsWith('Listening on ')) + 1);
      }
      expect((await fetch(`${two!.api}/client/users/m-alice/voucher-definitions`)).status).toBe(401);
      const [first, second] = await Promise.all([one!.metrics, two!.metrics].map(async (url) => (await fetch(url)).text()));
      expect(sample(first!, 'loyalty_http_requests_total{operation="listVoucherDefinitions",status="401"}')).toBeUndefined();
      expect(sample(second!, 'loyalty_http_requests_total{operation="listVoucherDefinitions",status="401"}')).toBe(1);
      expect((await fetch(`${one!.api}/metrics`)).status).toBe(404);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const mongo = testMongoSource();

if (mongo.kind === 'none') {
  it.skip(`GET /metrics on MongoDB: skipped, ${mongo.reason}`, () => undefined);
} else {
  describe('GET /metrics on MongoDB', () => {
    const dbName = uniqueDbName('metrics');
    let running: Started;
    afterAll(async () => {
      await running?.stop();
      await dropTestDatabase(mongo.uri, dbName);
    });

    it('counts the commands the process sends, by command and collection (loyalty_mongodb_commands_total)', async () => {
      running = await start({ MONGODB_URI: mongo.uri, MONGODB_DB: dbName, SEED_FILE: demoFixturePath });
      const counts = async (): Promise<Map<string, number>> => {
        const text = await (await fetch(running.metrics)).text();
        const found = [...text.matchAll(/^loyalty_mongodb_commands_total\{command="([^"]*)",collection="([^"]*)"\} (\d+)/gm)];
        return new Map(found.map((m) => [`${m[1]} ${m[2]}`, Number(m[3])]));
      };
      const before = await counts();
      // The start (layout, indexes, fixture) went through the same client.
      expect([...before.values()].reduce((sum, n) => sum + n, 0)).toBeGreaterThan(10);

      const session = await fetch(`${running.base}/client/users/m-alice/sessions`, { method: 'POST', headers: { 'x-api-key': key, 'x-identifier-type': 'CARD_NUMBER' } });
      expect(session.status).toBe(201);
      const { sessionToken } = (await session.json()) as { sessionToken: string };
      const ended = await fetch(`${running.base}/client/users/m-alice/sessions/current`, { method: 'DELETE', headers: { 'x-api-key': key, authorization: `Bearer ${sessionToken}` } });
      expect(ended.status).toBe(204);
      const after = await counts();
      // Start Session read the member; sign-out wrote the ended session.
      expect((after.get('find members') ?? 0) - (before.get('find members') ?? 0)).toBe(1);
      expect((after.get('update endedSessions') ?? 0) - (before.get('update endedSessions') ?? 0)).toBe(1);
      for (const labels of after.keys()) expect(labels).toMatch(/^[A-Za-z]+ [A-Za-z]+$/);
    });

    it('shows what its promises depend on: the outbox backlog, whether it counts the rate limit alone, its build', async () => {
      const text = await (await fetch(running.metrics)).text();
      // Nothing undelivered, and MongoDB answering its claims.
      expect(sample(text, 'loyalty_outbox_pending')).toBe(0);
      expect(sample(text, 'loyalty_outbox_oldest_pending_seconds')).toBe(0);
      expect(sample(text, 'loyalty_rate_limit_counting_alone')).toBe(0);
      expect(sample(text, `loyalty_build_info{version="${serverVersion()}",node_version="${process.versions.node}"}`)).toBe(1);
    });
  });
}
