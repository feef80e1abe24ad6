import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pino from 'pino';
import { createApp } from '../../server/src/app';
import type { Clock } from '../../server/src/domain/clock';
import type { WalletLimits } from '../../server/src/domain/limits';
import { createHttpServer } from '../../server/src/http/http-server';
import { createServices } from '../../server/src/features';
import { loadFixture, parseFixture } from '../../server/src/store/fixture';
import { MemoryStore } from '../../server/src/store/memory/memory-store';
import type { Store } from '../../server/src/store/port';

export interface TestServer {
  baseUrl: string;
  store: Store;
  /** Moves the server's clock. */
  advance(seconds: number): void;
  /** Waits for what answers left to do (the store's outbox), before reading the audit trail. */
  settled(): Promise<void>;
  now(): Date;
  close(): Promise<void>;
}

export interface TestServerOptions {
  fixture: unknown;
  /** Epoch milliseconds the server's clock starts at. */
  startAt: number;
  store?: Store;
  rateLimitPerMinute?: number;
  bodyLimitBytes?: number;
  /** Default: the server's default (defaultWalletLimits). */
  walletLimits?: WalletLimits;
  /** Puts something between the services and the default store (tests that watch or delay calls, or move the clock during one). */
  wrapStore?: (store: Store, clock: { advance(seconds: number): void }) => Store;
}

/** The real app on the given store (in-process by default), listening on port 0, responses validated. */
export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  let nowMs = options.startAt;
  const clock: Clock = () => new Date(nowMs);
  const advance = (seconds: number) => {
    nowMs += seconds * 1000;
  };
  const plain = options.store ?? new MemoryStore({ clock });
  const store = options.wrapStore ? options.wrapStore(plain, { advance }) : plain;
  await loadFixture(store, parseFixture(options.fixture), clock(), options.walletLimits);

  const services = createServices({ store, clock, ...(options.walletLimits && { walletLimits: options.walletLimits }) });
  const app = await createApp({
    services,
    store,
    logger: pino({ level: 'silent' }),
    config: {
      rateLimitPerMinute: options.rateLimitPerMinute ?? 0,
      bodyLimitBytes: options.bodyLimitBytes ?? 16384,
      trustProxy: false,
    },
    validateResponses: true,
  });
  const server: Server = await new Promise((resolve) => {
    const listening = createHttpServer(app).listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    store,
    advance,
    now: clock,
    settled: () => store.drainOutbox(),
    close: async () => {
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      await store.close();
    },
  };
}

/** A small HTTP client for the API under test: JSON in, status and JSON out. */
export function apiClient(baseUrl: string) {
  async function call(method: string, path: string, init: { apiKey?: string; token?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string } = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (init.apiKey) headers['x-api-key'] = init.apiKey;
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    let body: string | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    const json = text ? (JSON.parse(text) as Record<string, unknown> & Record<number, unknown>) : undefined;
    return { status: response.status, headers: response.headers, body: json as any };
  }

  return {
    call,
    async startSession(apiKey: string, correlationId: string, identifierType = 'CARD_NUMBER'): Promise<string> {
      return (await this.session(apiKey, correlationId, identifierType)).sessionToken;
    },
    async session(apiKey: string, correlationId: string, identifierType = 'CARD_NUMBER') {
      const response = await call('POST', `/client/users/${correlationId}/sessions`, {
        apiKey,
        headers: { 'x-identifier-type': identifierType },
      });
      if (response.status !== 201) throw new Error(`session start failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body as { sessionToken: string; sessionId: string };
    },
    listVouchers(apiKey: string, token: string, correlationId: string, businessUnit?: string) {
      const query = businessUnit === undefined ? '' : `?businessUnit=${encodeURIComponent(businessUnit)}`;
      return call('GET', `/client/users/${correlationId}/voucher-definitions${query}`, { apiKey, token });
    },
    updateReservation(apiKey: string, token: string, correlationId: string, reservationToken: string, body: unknown) {
      return call('PUT', `/client/users/${correlationId}/reservations/${reservationToken}`, { apiKey, token, body });
    },
  };
}
