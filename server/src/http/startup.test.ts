import { createServer, get as httpGet, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { RuntimeDeps } from '../composition';
import { loadConfig } from '../config';
import { EventEmitter } from 'node:events';
import { startServer, stopOnSignals, type RunningServer } from '../main';
import { fakeServices } from '../test-support/fake-services';
import { eventually, fakeTimeouts, nextTurn } from '../test-support/time';

/** startServer with fake deps; the store records when it is closed. */
async function start(env: Record<string, string> = {}) {
  const logs: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const services = fakeServices();
  const events: string[] = [];
  const store = { ping: async () => undefined, close: jest.fn(async () => void events.push('store closed')) };
  const deps: RuntimeDeps = { services, store };
  const config = loadConfig({ PORT: '0', SHUTDOWN_GRACE_MS: '2000', RATE_LIMIT_PER_MINUTE: '0', ...env });
  const running = await startServer(config, logger, async () => deps);
  return { running, logs, services, store, events };
}

const startSession = (running: RunningServer) =>
  fetch(`${running.url}/client/users/m-alice/sessions`, {
    method: 'POST',
    headers: { 'x-api-key': 'sk_test_partner', 'x-identifier-type': 'EMAIL' },
  });

describe('startServer', () => {
  it('says first which store it uses, without credentials', async () => {
    const embedded = await start();
    const mongo = await start({ MONGODB_URI: 'mongodb://app:s3cret@db-1:27017,db-2:27017/?replicaSet=rs0' });
    expect(embedded.logs[0]?.msg).toBe('Using embedded in-process store');
    expect(mongo.logs[0]?.msg).toBe('Using MongoDB at db-1:27017,db-2:27017/loyalty');
    expect(JSON.stringify(mongo.logs)).not.toContain('s3cret');
    await Promise.all([embedded.running.stop(), mongo.running.stop()]);
  });

  it('serves the app on the port it reports', async () => {
    const { running } = await start();
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    await running.stop();
  });

  it('closes the store again when it cannot listen', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, resolve));
    const { port } = blocker.address() as AddressInfo;
    const store = { ping: async () => undefined, close: jest.fn(async () => undefined) };
    const config = loadConfig({ PORT: String(port) });
    await expect(startServer(config, pino({ level: 'silent' }), async () => ({ services: fakeServices(), store }))).rejects.toThrow(/EADDRINUSE/);
    expect(store.close).toHaveBeenCalledTimes(1);
    blocker.close();
  });
});

describe('stop', () => {
  it('lets a request in flight finish, then closes the store', async () => {
    const { running, services, events } = await start();
    let release: () => void = () => undefined;
    services.sessions.startSession.mockImplementationOnce(async (_client, _keyId, _id, identifierType) => {
      await new Promise<void>((resolve) => {
        release = resolve;
        events.push('request in flight');
      });
      events.push('request finished');
      return { sessionToken: 'st_0123456789abcdefghijklmnop', sessionId: '3f6c1c9e-8f0a-4b7e-9a52-5d1e2c7b8a90', identifierType, expiresAt: new Date() };
    });
    const response = startSession(running);
    await eventually('the request in flight', () => events.includes('request in flight'));

    const stopped = running.stop().then(() => events.push('stopped'));
    // The drain has begun (no new connection is taken), and the stop waits for the request.
    await expect(freshGet(running.url, '/healthz')).rejects.toThrow(/ECONNREFUSED/);
    expect(events).toEqual(['request in flight']);
    release();

    expect((await response).status).toBe(201);
    await stopped;
    expect(events).toEqual(['request in flight', 'request finished', 'store closed', 'stopped']);
  });

  it('does not wait for idle kept-alive connections', async () => {
    const { running, logs } = await start();
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200); // leaves a kept-alive connection
    await running.stop();
    // Drained, not cut at the end of the grace period (2 s, less than the 5 s keep-alive timeout).
    expect(logs.some((line) => /cut/.test(line.msg))).toBe(false);
  });

  it('cuts what is still running after the grace period, and says so', async () => {
    const { running, services, logs, store } = await start({ SHUTDOWN_GRACE_MS: '2000' });
    services.sessions.startSession.mockImplementationOnce(() => new Promise(() => undefined));
    const response = startSession(running).catch((error: unknown) => error);
    await eventually('the request in flight', () => services.sessions.startSession.mock.calls.length > 0);
    fakeTimeouts();
    try {
      let stopped = false;
      const stopping = running.stop().then(() => (stopped = true));
      await jest.advanceTimersByTimeAsync(1999);
      await nextTurn();
      expect(stopped).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await stopping;
    } finally {
      jest.useRealTimers();
    }
    expect(String(await response)).toMatch(/fetch failed/); // the connection was cut
    expect(store.close).toHaveBeenCalledTimes(1);
    expect(logs.some((line) => line.level === 40 && /cut/.test(line.msg))).toBe(true);
  });

  it('is safe to call twice', async () => {
    const { running, store } = await start();
    await Promise.all([running.stop(), running.stop()]);
    expect(store.close).toHaveBeenCalledTimes(1);
  });

  it('with SHUTDOWN_DELAY_MS: not ready at once, still answering on new connections, then drains', async () => {
    const { running, events } = await start({ SHUTDOWN_DELAY_MS: '600' });
    expect((await freshGet(running.url, '/readyz')).status).toBe(200);
    fakeTimeouts();
    try {
      const stopped = running.stop().then(() => events.push('stopped'));
      const readiness = await freshGet(running.url, '/readyz');
      expect(readiness).toEqual({ status: 503, body: { statusCode: 503, errorCode: 'SERVICE_UNAVAILABLE', errorMessage: 'Shutting down' } });
      expect((await freshGet(running.url, '/healthz')).status).toBe(200);
      expect((await startSession(running)).status).toBe(201);
      // To the last millisecond of the delay, new connections are still taken.
      await jest.advanceTimersByTimeAsync(599);
      expect((await freshGet(running.url, '/healthz')).status).toBe(200);
      expect(events).toEqual([]);
      await jest.advanceTimersByTimeAsync(1);
      await stopped;
    } finally {
      jest.useRealTimers();
    }
    expect(events).toEqual(['store closed', 'stopped']);
    await expect(freshGet(running.url, '/healthz')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('skipDelay ends the delay under way (the drain begins), and says when there is none', async () => {
    const { running, events } = await start({ SHUTDOWN_DELAY_MS: '60000' });
    expect(running.skipDelay()).toBe(false);
    const stopped = running.stop().then(() => events.push('stopped'));
    // The delay is under way: not ready, nothing closed.
    expect((await freshGet(running.url, '/readyz')).status).toBe(503);
    expect(events).toEqual([]);
    expect(running.skipDelay()).toBe(true);
    await stopped;
    expect(events).toEqual(['store closed', 'stopped']);
    expect(running.skipDelay()).toBe(false);
  });
});

/** A GET on a connection of its own (no keep-alive pool): what a new client meets. */
function freshGet(base: string, path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(`${base}${path}`, { agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.on('error', reject);
  });
}

describe('stopOnSignals', () => {
  /** A process stand-in: signals are emitted by hand, exit is recorded, time moves when told. */
  function setUp(stopResult: Promise<void> = Promise.resolve(), delays = 0) {
    const emitter = new EventEmitter();
    const exit = jest.fn();
    let nowMs = 0;
    // skipDelay ends a delay `delays` times (a stop with SHUTDOWN_DELAY_MS), then finds none.
    let left = delays;
    const running = { url: 'http://127.0.0.1:1', stop: jest.fn(() => stopResult), skipDelay: jest.fn(() => left-- > 0) };
    const logs: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line).msg) });
    stopOnSignals(running, logger, { on: emitter.on.bind(emitter), exit } as never, () => nowMs);
    const signal = (name: NodeJS.Signals, atMs: number) => {
      nowMs = atMs;
      emitter.emit(name, name);
    };
    return { signal, exit, running, logs };
  }

  it.each(['SIGTERM', 'SIGINT'] as const)('%s stops gracefully, then exits 0', async (name) => {
    const { signal, exit, running, logs } = setUp();
    signal(name, 0);
    await eventually('the exit', () => exit.mock.calls.length > 0);
    expect(running.stop).toHaveBeenCalledTimes(1);
    expect(exit.mock.calls).toEqual([[0]]);
    expect(logs).toEqual([`${name} received`]);
  });

  it("takes a repeat within a second for the same Ctrl+C (npm forwards the terminal's signal)", () => {
    const { signal, exit, running } = setUp(new Promise(() => undefined));
    signal('SIGINT', 0);
    signal('SIGINT', 5);
    signal('SIGTERM', 999);
    expect(running.stop).toHaveBeenCalledTimes(1);
    expect(exit).not.toHaveBeenCalled();
  });

  it('exits at once on a signal after that, with 128 + its number', () => {
    const { signal, exit, logs } = setUp(new Promise(() => undefined));
    signal('SIGINT', 0);
    signal('SIGINT', 1500);
    expect(exit.mock.calls).toEqual([[130]]);
    expect(logs).toContain('SIGINT received again: exiting without waiting for requests in flight');
  });

  it('a signal during the shutdown delay ends the delay; the next one exits at once', () => {
    const { signal, exit, running, logs } = setUp(new Promise(() => undefined), 1);
    signal('SIGTERM', 0);
    signal('SIGTERM', 1500);
    expect(running.skipDelay).toHaveBeenCalledTimes(1);
    expect(exit).not.toHaveBeenCalled();
    expect(logs).toContain('SIGTERM received again: draining now, without the rest of the shutdown delay');
    signal('SIGTERM', 3000);
    expect(exit.mock.calls).toEqual([[143]]);
  });

  it('exits 1 when the stop fails', async () => {
    const { signal, exit } = setUp(Promise.reject(new Error('close failed')));
    signal('SIGTERM', 0);
    await eventually('the exit', () => exit.mock.calls.length > 0);
    expect(exit.mock.calls).toEqual([[1]]);
  });
});
