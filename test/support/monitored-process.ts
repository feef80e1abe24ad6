import type { ServerResponse } from 'node:http';
import { MongoClient, type CommandStartedEvent, type Document } from 'mongodb';
import { pino } from 'pino';
import { depsOf } from '../../server/src/composition';
import { loadConfig, type AppConfig } from '../../server/src/config';
import { defaultWalletLimits } from '../../server/src/domain/limits';
import { firstSessionKey } from '../../server/src/domain/session-keys';
import { storeDb } from '../../server/src/store/mongo/concerns';
import { fixedConnection } from '../../server/src/store/mongo/connection';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { startTestApp } from '../../server/src/test-support/app-harness';

/*
 * A server process as main builds it (`depsOf`: caches, rate limit, outbox
 * sweep) on a MongoDB client of its own that reports every command it
 * sends, for the tests of what requests cost the database and what they
 * send it. Requests go to it one at a time: a command counts as after the
 * answer once its request's head is written.
 */

export interface MonitoredProcess {
  base: string;
  /** Every command this process's client sent, with whether its request had answered by then. */
  sent: Array<{ name: string; afterAnswer: boolean; writeConcern: Document | undefined; event: CommandStartedEvent }>;
  store: MongoStore;
  close(): Promise<void>;
}

/** The limits besides the key's: main's defaults unless a test says otherwise. */
export type OtherLimits = Partial<Pick<AppConfig, 'sessionRateLimitPerMinute' | 'authFailuresPerMinute'>>;

export async function startMonitoredProcess(uri: string, dbName: string, rateLimitPerMinute: number, limits: OtherLimits = {}): Promise<MonitoredProcess> {
  const client = await new MongoClient(uri, { monitorCommands: true, ignoreUndefined: true, serverSelectionTimeoutMS: 10_000 }).connect();
  const store = MongoStore.over(fixedConnection(client, storeDb(client, dbName)));
  // As a server's start gives an empty database its first session key (every test database is new): sealed tokens.
  await store.ensureFirstSessionKey(firstSessionKey(new Date()));
  const logger = pino({ level: 'silent' });
  // Its monotonic clock stands still: what it keeps for 2 s (keys, sessions, members, the session state) it
  // keeps while the test counts, however slow the machine, as a process does between requests a moment apart.
  const startedAt = performance.now();
  const deps = depsOf(store, { walletLimits: defaultWalletLimits, rateLimitPerMinute }, logger, {}, () => startedAt);
  const { sessionRateLimitPerMinute, authFailuresPerMinute } = loadConfig({});
  const app = await startTestApp({ deps, config: { rateLimitPerMinute, sessionRateLimitPerMinute, authFailuresPerMinute, ...limits }, validateResponses: false });
  const server = app.running[0]!.server;
  const sent: MonitoredProcess['sent'] = [];
  let answered = true;
  server.on('request', (_req, res: ServerResponse) => {
    answered = false;
    const writeHead = res.writeHead.bind(res);
    res.writeHead = function (...args: Parameters<ServerResponse['writeHead']>) {
      answered = true;
      return writeHead(...args);
    } as typeof res.writeHead;
  });
  client.on('commandStarted', (event: CommandStartedEvent) => {
    const name = `${event.commandName} ${String(event.command[event.commandName])}`;
    sent.push({ name, afterAnswer: answered, writeConcern: event.command.writeConcern as Document | undefined, event });
  });
  return {
    base: app.baseUrl,
    sent,
    store,
    close: async () => {
      await app.close();
      await client.close();
    },
  };
}
