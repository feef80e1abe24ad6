import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApp, type AppDeps } from '../../app';
import type { Liveness } from '../health';
import { createHttpServer } from '../http-server';
import { aliceToken, apiKeys, fakeServices, type FakeServices } from './fakes';

export interface TestApp {
  baseUrl: string;
  services: FakeServices;
  ping: jest.Mock<Promise<void>, []>;
  liveness: jest.Mock<ReturnType<Liveness>, []>;
  /** Every line the app logged, parsed. */
  logs: Array<Record<string, unknown>>;
  send(method: string, path: string, init?: SendInit): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface SendInit {
  /** Defaults to the partner's key; null sends none. */
  apiKey?: string | null;
  /** `Authorization: Bearer <bearer>`. */
  bearer?: string;
  headers?: Record<string, string>;
  /** Sent as `application/json` unless a content-type header says otherwise. */
  json?: unknown;
  /** Sent exactly as given. */
  rawBody?: string;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when it is JSON. */
  body: any;
}

/** As m-alice with a valid session. */
export const asAlice: SendInit = { bearer: aliceToken };

/**
 * `createApp` with fake services and a fake store, listening on a free port,
 * responses validated against the spec.
 */
export async function startTestApp(overrides: Partial<AppDeps['config']> = {}): Promise<TestApp> {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const services = fakeServices();
  const ping = jest.fn(async (): Promise<void> => undefined);
  const liveness = jest.fn((): ReturnType<Liveness> => ({ live: true }));
  const app = await createApp({
    services,
    store: { ping },
    liveness,
    logger,
    config: { rateLimitPerMinute: 0, bodyLimitBytes: 16384, trustProxy: false, ...overrides },
    validateResponses: true,
  });
  const server: Server = await new Promise((resolve) => {
    const listening = createHttpServer(app).listen(0, '127.0.0.1', () => resolve(listening));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    services,
    ping,
    liveness,
    logs,
    send: (method, path, init = {}) => send(baseUrl, method, path, init),
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function send(baseUrl: string, method: string, path: string, init: SendInit): Promise<TestResponse> {
  const headers: Record<string, string> = {};
  const apiKey = init.apiKey === undefined ? apiKeys.partner : init.apiKey;
  if (apiKey !== null) headers['x-api-key'] = apiKey;
  if (init.bearer !== undefined) headers.authorization = `Bearer ${init.bearer}`;
  let body = init.rawBody;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, init.headers);
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  const isJson = response.headers.get('content-type')?.startsWith('application/json') ?? false;
  return { status: response.status, headers: response.headers, text, body: isJson ? JSON.parse(text) : undefined };
}
