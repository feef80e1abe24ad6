import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createLoyaltyClient } from '@loyalty/sdk';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { dropTestDatabase, testMongoSource, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';
import { eventually } from '../../server/src/test-support/time';
import { childProcessEnv } from '../support/process-env';

/*
 * Tracing end to end. The server runs as its own process, as operators run
 * it (`node server/src/main.ts`, compiled on the fly by
 * test/soak/register.cjs): its tracing must start before express, mongodb
 * and node:http load, which only a fresh process shows. It sends its spans
 * to an OTLP/HTTP receiver in this test, on loopback.
 *
 * On the embedded store by default; on MongoDB too when MONGODB_URI is set,
 * where each store call's MongoDB commands and the rate limit's count
 * appear in the trace.
 */

jest.setTimeout(60_000);

const repoRoot = path.resolve(__dirname, '../..');
const serverVersion: unknown = JSON.parse(readFileSync(path.join(repoRoot, 'server/package.json'), 'utf8')).version;
const demoKey = 'demo_secret_partner_app_0001';
const mongo = testMongoSource();

/** What a POST to the receiver's /v1/traces carried. */
interface Export {
  contentType: string;
  body: Buffer;
}

interface Receiver {
  endpoint: string;
  exports: Export[];
  close(): Promise<void>;
}

/** A minimal OTLP/HTTP receiver: keeps every export to /v1/traces, answers 200 (an empty ExportTraceServiceResponse). */
async function startReceiver(): Promise<Receiver> {
  const exports: Export[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') exports.push({ contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      const json = (req.headers['content-type'] ?? '').includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface ServerProcess {
  url: string;
  /** stdout, the JSON log lines. */
  stdout: string[];
  stderr: string[];
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** `node server/src/main.ts` with `env` (and none of this process's OTEL_*, MONGODB_* or npm_* settings), once it listens. */
async function startServerProcess(env: Record<string, string>, nodeArgs: string[] = []): Promise<ServerProcess> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [...nodeArgs, '-r', path.join(repoRoot, 'test/soak/register.cjs'), path.join(repoRoot, 'server/src/main.ts')],
    { cwd: repoRoot, env: childProcessEnv({ PORT: '0', LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: '2000', ...env }) },
  );
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.push(chunk.toString());
      const listening = /"msg":"Listening on http:\/\/[^"]*:(\d+)"/.exec(stdout.join(''));
      if (listening) resolve(Number(listening[1]));
    });
    void exited.then((code) => reject(new Error(`the server exited (${code}) before listening:\n${stdout.join('')}${stderr.join('')}`)));
  });
  let stopped: Promise<number | null> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    stdout,
    stderr,
    stop: () => {
      if (!stopped) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        stopped = exited.finally(() => clearTimeout(timer));
      }
      return stopped;
    },
  };
}

/** A caller's span: a W3C `traceparent` with fresh ids, sampled. */
function callerSpan(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/**
 * Operation B on the demo data through the SDK, as a partner app whose own
 * span is `traceparent` calls it (`tracePropagation`, what
 * OpenTelemetry's `propagation.inject` gives): a session, then the update.
 * Returns the update's status and the session token (which no span may hold).
 */
async function operationB(baseUrl: string, traceparent: string): Promise<{ status: number; sessionToken: string }> {
  const loyalty = createLoyaltyClient({ baseUrl, apiKey: demoKey, retries: 0, tracePropagation: () => ({ traceparent, tracestate: 'partner=1' }) });
  const session = await loyalty.startSession({ correlationId: 'm-alice', identifierType: 'CARD_NUMBER' });
  if (!session.data) throw new Error(`no session: ${JSON.stringify(session.error)}`);
  const { sessionToken } = session.data;
  const { response } = await loyalty.updateReservation({
    correlationId: 'm-alice',
    sessionToken,
    reservationToken: 'rt-alice-1',
    body: { reservationAmount: 7500 },
  });
  return { status: response.status, sessionToken };
}

/** A span as OTLP/JSON carries it, its attributes flattened. */
interface ExportedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  traceState?: string;
  scope: string;
  serviceName: unknown;
  serviceVersion: unknown;
  attributes: Record<string, unknown>;
  status: { code?: number };
}

interface OtlpJsonValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpJsonAttribute {
  key: string;
  value: OtlpJsonValue;
}
interface OtlpJsonExport {
  resourceSpans: {
    resource: { attributes: OtlpJsonAttribute[] };
    scopeSpans: {
      scope: { name: string };
      spans: (Omit<ExportedSpan, 'attributes' | 'scope' | 'serviceName' | 'serviceVersion'> & { attributes?: OtlpJsonAttribute[] })[];
    }[];
  }[];
}

function attributesOf(list: OtlpJsonAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.boolValue ?? value.doubleValue]));
}

/** Every span of the JSON exports received so far. */
function jsonSpans(exports: Export[]): ExportedSpan[] {
  return exports
    .filter((received) => received.contentType.includes('application/json'))
    .flatMap((received) => (JSON.parse(received.body.toString()) as OtlpJsonExport).resourceSpans)
    .flatMap((resourceSpans) => {
      const resource = attributesOf(resourceSpans.resource.attributes);
      const [serviceName, serviceVersion] = [resource['service.name'], resource['service.version']];
      return resourceSpans.scopeSpans.flatMap(({ scope, spans }) =>
        spans.map((span) => ({ ...span, parentSpanId: span.parentSpanId ?? '', scope: scope.name, serviceName, serviceVersion, attributes: attributesOf(span.attributes) })),
      );
    });
}

interface LogLine {
  msg: string;
  trace_id?: string;
  span_id?: string;
  req?: { method: string; route: string; memberHash?: string };
}

/**
 * Every line of a server process as an operator keeps it: its ISO time, its
 * level by name, the service and its version; none names the demo member or
 * its reservation token, which the URLs of the requests held.
 */
function expectKeepableLogs(stdout: string[]): void {
  const lines = stdout.join('').split('\n').filter((line) => line.startsWith('{'));
  expect(lines.length).toBeGreaterThan(3);
  for (const line of lines) {
    expect(JSON.parse(line)).toMatchObject({
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      level: expect.stringMatching(/^(trace|debug|info|warn|error|fatal)$/),
      service: 'loyalty-api',
      version: serverVersion,
    });
    expect(line).not.toMatch(/m-alice|rt-alice-1/);
  }
}

function logLines(stdout: string[]): LogLine[] {
  return stdout
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

const storeVariants = [
  { name: 'the embedded store', mongo: null },
  ...(mongo.kind === 'uri' ? [{ name: 'MongoDB', mongo: mongo.uri }] : []),
] as const;

describe('tracing on: OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = await startReceiver();
  });

  afterEach(async () => {
    await receiver.close();
  });

  if (mongo.kind === 'none') it.skip(`the MongoDB variant (${mongo.reason})`, () => undefined);

  describe.each(storeVariants)('on $name', ({ mongo: mongoUri }) => {
    const dbName = uniqueDbName('tracing');

    afterAll(async () => {
      if (mongoUri) await dropTestDatabase(mongoUri, dbName);
    });

    it("http/json: Operation B, sent by the SDK with a caller's traceparent, is one trace: the server span updateReservation under the caller's span, store calls (and MongoDB commands) under it, its log lines carry the trace id", async () => {
      const server = await startServerProcess({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        ...(mongoUri && { MONGODB_URI: mongoUri, MONGODB_DB: dbName, SEED_FILE: path.join(repoRoot, 'server/fixtures/demo.json') }),
      });
      try {
        const caller = callerSpan();
        const { status, sessionToken: token } = await operationB(server.url, caller.traceparent);
        expect(status).toBe(200);
        expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
        // A request that is no operation, its path and query naming the member.
        const stray = await fetch(`${server.url}/client/users/m-alice/points?member=m-alice`, { headers: { 'x-api-key': demoKey, 'x-request-id': 'stray-1' } });
        expect(stray.status).toBe(404);

        const serverSpan = await eventually('the server span of Operation B', () =>
          jsonSpans(receiver.exports).find((span) => span.traceId === caller.traceId && span.kind === 2 && span.name === 'updateReservation'),
        );
        expect(serverSpan).toMatchObject({
          name: 'updateReservation',
          parentSpanId: caller.spanId,
          traceState: 'partner=1',
          serviceName: 'loyalty-api',
          serviceVersion: serverVersion,
          attributes: expect.objectContaining({
            'http.request.method': 'PUT',
            'http.route': '/client/users/{correlation_id}/reservations/{reservation_token}',
            'http.response.status_code': 200,
            // The route, not the path: the path holds the member's id and the token.
            'url.path': '/client/users/{correlation_id}/reservations/{reservation_token}',
            'user.hash': expect.stringMatching(/^[0-9a-f]{32}$/),
          }),
        });
        expect(serverSpan.attributes['loyalty.request_id']).toEqual(expect.any(String));

        // Operation B's store calls, each a child of the server span (on MongoDB the save's outbox is delivered after the answer, under the save).
        // The sealed session is opened, not read; the key that started it is read on the embedded store (which keeps
        // nothing), not on MongoDB (the process read it by digest for the start, and keeps it).
        const storeCalls = mongoUri ? ['loadWalletSlice', 'saveReservationChange'] : ['findApiKeyById', 'loadWalletSlice', 'saveReservationChange'];
        const trace = await eventually('the store spans', () => {
          const spans = jsonSpans(receiver.exports).filter((span) => span.traceId === caller.traceId);
          return storeCalls.every((name) => spans.some((span) => span.name === name)) ? spans : undefined;
        });
        const storeSpans = trace.filter((span) => storeCalls.includes(span.name));
        expect(storeSpans.map((span) => span.name).sort()).toEqual([...storeCalls].sort());
        for (const span of storeSpans) expect(span).toMatchObject({ scope: '@loyalty/server', parentSpanId: serverSpan.spanId });

        if (mongoUri) {
          // Every MongoDB command of Operation B's store calls is that call's child...
          const withCommands = await eventually('the MongoDB command spans', () => {
            const spans = jsonSpans(receiver.exports).filter((span) => span.traceId === caller.traceId);
            const commands = spans.filter((span) => span.attributes['db.system.name'] === 'mongodb');
            const parents = new Set(commands.map((span) => span.parentSpanId));
            const ofB = spans.filter((span) => span.parentSpanId === serverSpan.spanId);
            // The rate limit claims a block on the first request of the key's window (the session's).
            const claimed = spans.some((span) => span.name === 'rateLimitCount' && parents.has(span.spanId));
            return claimed && ['loadWalletSlice', 'saveReservationChange'].every((name) => ofB.some((span) => span.name === name && parents.has(span.spanId))) ? spans : undefined;
          });
          const byId = new Map(withCommands.map((span) => [span.spanId, span]));
          // (The session started before it is in the same trace: the same caller's span.)
          const commands = withCommands.filter(
            (span) => span.attributes['db.system.name'] === 'mongodb' && byId.get(span.parentSpanId)?.parentSpanId === serverSpan.spanId,
          );
          for (const command of commands) {
            expect(command.scope).toBe('@opentelemetry/instrumentation-mongodb');
            expect([...storeCalls, 'rateLimitCount']).toContain(byId.get(command.parentSpanId)?.name);
          }
          expect(commands.find((span) => byId.get(span.parentSpanId)?.name === 'saveReservationChange')?.attributes).toMatchObject({
            'db.operation.name': 'update',
            'db.collection.name': 'wallets',
            'db.namespace': dbName,
          });
          // ...the rate limit's count is a child of the server span (spending a block held: no command)...
          const count = withCommands.find((span) => span.name === 'rateLimitCount' && span.parentSpanId === serverSpan.spanId);
          expect(count).toMatchObject({ parentSpanId: serverSpan.spanId, attributes: { 'loyalty.rate_limit.hits': expect.any(Number) } });
          // ...and the count that claimed the window's first block (the session's) holds its findAndModify.
          const claims = withCommands.filter((span) => span.attributes['db.system.name'] === 'mongodb' && byId.get(span.parentSpanId)?.name === 'rateLimitCount');
          expect(claims.length).toBeGreaterThan(0);
          for (const claim of claims) expect(claim.attributes['db.operation.name']).toBe('findAndModify');
        }

        // The access log line of the request carries its trace and its server span.
        const accessLine = await eventually('the access log line of Operation B', () =>
          logLines(server.stdout).find((line) => line.msg === 'request completed' && line.req?.method === 'PUT'),
        );
        expect(accessLine).toMatchObject({ trace_id: caller.traceId, span_id: serverSpan.spanId, req: { memberHash: serverSpan.attributes['user.hash'] } });
        expect(logLines(server.stdout).find((line) => line.msg.startsWith('Tracing on'))?.msg).toBe(
          `Tracing on: OTLP http/json to ${receiver.endpoint}/v1/traces`,
        );

        const straySpan = await eventually('the span of the request that is no operation', () =>
          jsonSpans(receiver.exports).find((span) => span.attributes['loyalty.request_id'] === 'stray-1'),
        );
        expect(straySpan).toMatchObject({ name: 'GET', attributes: expect.objectContaining({ 'url.path': '/client/*', 'url.query': 'member=REDACTED' }) });
        expect(straySpan.attributes).not.toHaveProperty('http.route');

        // Probes make no span; no span carries a credential, nor the member's id or the reservation token, which the URLs held.
        const everything = receiver.exports.map((received) => received.body.toString()).join('\n');
        expect(everything).not.toContain('/readyz');
        expect(everything).not.toContain(demoKey);
        expect(everything).not.toContain(token);
        expect(everything.toLowerCase()).not.toMatch(/x-api-key|authorization/);
        expect(everything).not.toMatch(/m-alice|rt-alice-1/);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      expectKeepableLogs(server.stdout);
    });
  });

  it('http/protobuf: the spans still queued are sent on SIGTERM, before the process exits', async () => {
    const server = await startServerProcess({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      // Nothing would leave before a minute: what arrives was flushed by the stop.
      OTEL_BSP_SCHEDULE_DELAY: '60000',
    });
    const caller = callerSpan();
    expect((await operationB(server.url, caller.traceparent)).status).toBe(200);
    expect(receiver.exports).toEqual([]);

    expect(await server.stop()).toBe(0);
    expect(receiver.exports.length).toBeGreaterThan(0);
    expect(receiver.exports.every((received) => received.contentType === 'application/x-protobuf')).toBe(true);
    // The protobuf carries ids as raw bytes and names as UTF-8.
    const body = Buffer.concat(receiver.exports.map((received) => received.body));
    expect(body.includes(Buffer.from(caller.traceId, 'hex'))).toBe(true);
    expect(body.includes(Buffer.from(caller.spanId, 'hex'))).toBe(true);
    for (const name of ['updateReservation', 'loadWalletSlice', 'saveReservationChange', 'loyalty-api']) expect(body.includes(Buffer.from(name))).toBe(true);
    const logs = logLines(server.stdout);
    expect(logs.find((line) => line.msg === 'request completed' && line.req?.method === 'PUT')?.trace_id).toBe(caller.traceId);
    expect(logs.at(-1)?.msg).toBe('Stopped');
  });
});

describe('tracing off', () => {
  it.each([
    ['without any OTEL_* variable', {}],
    ['with OTEL_SDK_DISABLED=true, even with an endpoint', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }],
  ])('%s: no OpenTelemetry module is loaded and nothing is registered, and log lines carry no trace id', async (_case, env: Record<string, string>) => {
    const server = await startServerProcess(env, ['--require', path.join(repoRoot, 'test/support/loaded-modules.cjs')]);
    expect((await operationB(server.url, callerSpan().traceparent)).status).toBe(200);
    expect(await server.stop()).toBe(0);

    const line = /^LOADED-MODULES (.*)$/m.exec(server.stderr.join(''));
    expect(line).not.toBeNull();
    const report = JSON.parse(line?.[1] ?? '{}') as { loaded: string[]; apiRegistered: string[] };
    // prom-client (the metrics) requires @opentelemetry/api, a no-op facade
    // until something registers with it; nothing else of OpenTelemetry loads.
    const packages = new Set(report.loaded.map((file) => /node_modules[\\/](@opentelemetry[\\/][^\\/]+|[^\\/@]+)/.exec(file)?.[1] ?? file));
    expect([...packages].filter((name) => name !== path.join('@opentelemetry', 'api'))).toEqual([]);
    expect(report.apiRegistered).toEqual([]);
    const logs = logLines(server.stdout);
    expect(logs.find((line) => line.msg === 'request completed' && line.req?.method === 'PUT')).not.toHaveProperty('trace_id');
    expect(logs.some((line) => line.msg.startsWith('Tracing on'))).toBe(false);
    expectKeepableLogs(server.stdout);
  });
});
