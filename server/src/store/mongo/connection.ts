import { MongoClient, type CommandStartedEvent, type Db, type MongoClientOptions } from 'mongodb';
import pTimeout from 'p-timeout';
import { StoreUnavailableError } from '../port';
import { storeDb } from './concerns';
import { toStoreError, unreachableReason } from './errors';

/*
 * The MongoDB client of a store, kept usable whatever the driver does.
 *
 * The driver reconnects by itself after an outage, nearly always. Not
 * always: its server monitor can stay stuck writing to a socket the server
 * has closed (mongodb's connection.ts waits for a `drain` or `error` that
 * never comes), the server then stays Unknown and every operation fails
 * server selection until the process restarts, while a fresh client
 * connects at once. So a watchdog pings through the client every few
 * seconds; when that fails and the client's monitor has not heard the
 * server for a while either (a client whose pool is merely full, on a slow
 * database, still hears it: it is busy, and replacing it would only add
 * connections), it asks a fresh, short-lived client, and when the fresh one
 * gets through on two checks in a row, the stuck client is replaced. An
 * operation that never settles (a write parked on such a socket) is
 * answered "unavailable" at its deadline instead of hanging its request.
 *
 * When even replacing the client does not help for `stuckLimitMs`, `health()`
 * says the process cannot recover by itself (`/healthz` then answers 503,
 * so that an orchestrator restarts it).
 */

export interface MongoConnectionOptions {
  uri: string;
  dbName: string;
  /** How long an operation waits for a usable server before failing as unavailable. */
  serverSelectionTimeoutMS?: number;
  socketTimeoutMS?: number;
  maxPoolSize?: number;
  /** Longest any one operation may take before it is answered as unavailable; default: the driver's selection and socket timeouts plus a second. */
  operationDeadlineMs?: number;
  /** Between watchdog checks. Default 3000: a stuck client is seen on two checks in a row, then replaced. 0 turns the watchdog off (tests of the bare client). */
  watchdogIntervalMs?: number;
  /** How long the watchdog's ping and a fresh client's probe may take. Default 2000. */
  probeTimeoutMs?: number;
  /** At least this long between two replacements of the client. Default 10000. */
  minRebuildIntervalMs?: number;
  /** Unreachable through this client, reachable through a fresh one, for this long: the process cannot recover by itself. Default 60000. */
  stuckLimitMs?: number;
  /** A client whose monitor heard the server (a heartbeat) within this long is busy, not stuck. Default 6000: three of its heartbeats. */
  heartbeatSilenceMs?: number;
}

/** What the watchdog knows. */
export interface ConnectionHealth {
  /** The last check got through the client. */
  reachable: boolean;
  /** Set while this client fails and a fresh one gets through: the client is stuck. */
  stuckSince: Date | null;
  /** False once stuck for longer than `stuckLimitMs`: only a restart helps. */
  recoverable: boolean;
  /** Clients replaced so far. */
  rebuilds: number;
}

/** Watchdog events, for metrics and logs. */
export interface ConnectionObserver {
  onCheck?(reachable: boolean): void;
  onRebuild?(outcome: 'replaced' | 'failed', reason: string): void;
  /**
   * Each command the store's client sends, whichever client that is (a
   * replacement too); given, the clients monitor their commands. The
   * watchdog's short-lived probe clients are not watched.
   */
  onCommand?: (event: CommandStartedEvent) => void;
}

/** What the connection needs from the outside world; tests replace it. */
export interface ConnectionEnvironment {
  createClient(uri: string, options: MongoClientOptions): MongoClient;
  now(): number;
}

const realEnvironment: ConnectionEnvironment = {
  createClient: (uri, options) => new MongoClient(uri, options),
  now: () => Date.now(),
};

/** What a MongoStore uses of its connection (tests give a plain client; see fixedConnection). */
export interface StoreConnection {
  readonly db: Db;
  readonly currentGeneration: number;
  run<T>(operation: () => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  health(): ConnectionHealth;
  close(): Promise<void>;
}

/** A connection over one given client, without watchdog or deadline: for tests that watch what a client sends. */
export function fixedConnection(client: MongoClient, db: Db): StoreConnection {
  return {
    db,
    currentGeneration: 0,
    run: async (operation) => {
      try {
        return await operation();
      } catch (error) {
        throw toStoreError(error);
      }
    },
    ping: async () => {
      try {
        await client.db('admin').command({ ping: 1 });
      } catch (error) {
        throw toStoreError(error);
      }
    },
    health: () => ({ reachable: true, stuckSince: null, recoverable: true, rebuilds: 0 }),
    close: () => client.close(),
  };
}

export class MongoConnection implements StoreConnection {
  private client: MongoClient;
  private database: Db;
  private generation = 0;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | null = null;
  private closed = false;
  /** Replaced clients, closed once the calls still on them are past their deadline. */
  private readonly staleClients = new Set<{ client: MongoClient; timer: NodeJS.Timeout }>();
  /** When the current client's monitor last heard the server. */
  private heardAt: number;
  private state: { reachable: boolean; stuckSince: number | null; lastRebuildAt: number; rebuilds: number };
  private readonly operationDeadlineMs: number;

  private constructor(
    private readonly options: MongoConnectionOptions,
    client: MongoClient,
    private readonly environment: ConnectionEnvironment,
    private readonly observer: ConnectionObserver,
  ) {
    this.client = client;
    this.database = storeDb(client, options.dbName);
    this.state = { reachable: true, stuckSince: null, lastRebuildAt: environment.now(), rebuilds: 0 };
    this.heardAt = environment.now();
    this.followHeartbeats(client);
    this.followCommands(client);
    // The driver's own timeouts answer first; the deadline catches only what never settles.
    this.operationDeadlineMs = options.operationDeadlineMs ?? (options.serverSelectionTimeoutMS ?? 30_000) + (options.socketTimeoutMS || 30_000) + 1000;
    const interval = options.watchdogIntervalMs ?? 3000;
    if (interval > 0) {
      this.timer = setInterval(() => void this.check(), interval);
      // Housekeeping never keeps the process alive.
      this.timer.unref();
    }
  }

  /**
   * Connects (the server must answer within the selection timeout). An
   * unreachable server gives `StoreUnavailableError` with the driver's own reason.
   */
  static async open(
    options: MongoConnectionOptions,
    observer: ConnectionObserver = {},
    environment: ConnectionEnvironment = realEnvironment,
  ): Promise<MongoConnection> {
    const client = await connectClient(environment, options.uri, storeClientOptions(options, observer));
    return new MongoConnection(options, client, environment, observer);
  }

  /** The current database handle; it changes when the client is replaced (see `currentGeneration`). */
  get db(): Db {
    return this.database;
  }

  /** Changes whenever the client is replaced: handles made from `db` are stale once it does. */
  get currentGeneration(): number {
    return this.generation;
  }

  /**
   * Runs one driver call: "database unreachable", a raw socket error and an
   * operation past its deadline become `StoreUnavailableError`.
   */
  async run<T>(operation: () => Promise<T>): Promise<T> {
    const ms = this.operationDeadlineMs;
    try {
      // The error is made only when the deadline passes: not once per call.
      return await pTimeout(operation(), {
        milliseconds: ms,
        fallback: () => {
          throw new StoreUnavailableError(`no answer within ${ms} ms`);
        },
      });
    } catch (error) {
      throw toStoreError(error);
    }
  }

  async ping(): Promise<void> {
    await this.run(() => this.client.db('admin').command({ ping: 1 }));
  }

  health(): ConnectionHealth {
    const { reachable, stuckSince, rebuilds } = this.state;
    const limit = this.options.stuckLimitMs ?? 60_000;
    return {
      reachable,
      stuckSince: stuckSince === null ? null : new Date(stuckSince),
      recoverable: stuckSince === null || this.environment.now() - stuckSince < limit,
      rebuilds,
    };
  }

  /** One watchdog round (also what the timer runs); rounds never overlap. */
  check(): Promise<void> {
    this.checking ??= this.checkOnce().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    // A check under way stops at its next step (it sees `closed`); a client
    // it is connecting is closed by it. Shutdown waits for neither for long:
    // closing a stuck client may never finish.
    await this.settledWithinProbe(this.checking ?? Promise.resolve());
    for (const stale of this.staleClients) {
      clearTimeout(stale.timer);
      void this.settledWithinProbe(stale.client.close());
    }
    this.staleClients.clear();
    await this.settledWithinProbe(this.client.close());
  }

  private async checkOnce(): Promise<void> {
    if (this.closed) return;
    const reachable = await this.answersWithin(() => this.client.db('admin').command({ ping: 1 }));
    this.state.reachable = reachable;
    this.observer.onCheck?.(reachable);
    if (reachable || this.environment.now() - this.heardAt < (this.options.heartbeatSilenceMs ?? 6000)) {
      // Reachable, or busy: its monitor still hears the server.
      this.state.stuckSince = null;
      return;
    }
    // Down for everyone (the database), or only for this client (stuck)?
    if (!(await this.freshClientGetsThrough())) {
      this.state.stuckSince = null;
      return;
    }
    // Seen once, it may be a client that has not noticed yet that the
    // database is back (its next heartbeat will); seen on two checks in a row, it is stuck.
    if (this.state.stuckSince === null) {
      this.state.stuckSince = this.environment.now();
      return;
    }
    if (this.environment.now() - this.state.lastRebuildAt >= (this.options.minRebuildIntervalMs ?? 10_000)) await this.rebuild();
  }

  /** Replaces the client; the old one is closed in the background (it may hang: it is stuck). */
  private async rebuild(): Promise<void> {
    this.state.lastRebuildAt = this.environment.now();
    let fresh: MongoClient;
    try {
      fresh = await connectClient(this.environment, this.options.uri, storeClientOptions(this.options, this.observer));
    } catch (error) {
      this.observer.onRebuild?.('failed', unreachableReason(error));
      return;
    }
    if (this.closed) {
      await fresh.close();
      return;
    }
    const stale = this.client;
    this.client = fresh;
    this.followHeartbeats(fresh);
    this.followCommands(fresh);
    this.database = storeDb(fresh, this.options.dbName);
    this.generation++;
    this.state.rebuilds++;
    this.observer.onRebuild?.('replaced', 'unreachable through the client, reachable through a fresh one');
    // New calls take the new client; those still on the old one get until
    // their deadline (closing it would cut them), then it goes.
    const entry = {
      client: stale,
      timer: setTimeout(() => {
        this.staleClients.delete(entry);
        void this.settledWithinProbe(stale.close());
      }, this.operationDeadlineMs),
    };
    entry.timer.unref();
    this.staleClients.add(entry);
  }

  /** Notes each heartbeat the client's monitor gets an answer to, while it is the current client. */
  private followHeartbeats(client: MongoClient): void {
    client.on('serverHeartbeatSucceeded', () => {
      if (client === this.client) this.heardAt = this.environment.now();
    });
  }

  private followCommands(client: MongoClient): void {
    const { onCommand } = this.observer;
    if (onCommand) client.on('commandStarted', (event) => onCommand(event));
  }

  private async freshClientGetsThrough(): Promise<boolean> {
    const timeout = this.probeTimeoutMs();
    const probe = this.environment.createClient(this.options.uri, {
      ...clientOptions(this.options),
      serverSelectionTimeoutMS: timeout,
      connectTimeoutMS: timeout,
      maxPoolSize: 1,
    });
    try {
      return await this.answersWithin(async () => {
        await probe.connect();
        await probe.db('admin').command({ ping: 1 });
      });
    } finally {
      void this.settledWithinProbe(probe.close());
    }
  }

  private async answersWithin(operation: () => Promise<unknown>): Promise<boolean> {
    try {
      await pTimeout(operation(), { milliseconds: this.probeTimeoutMs() });
      return true;
    } catch {
      return false;
    }
  }

  /** Waits for `pending` to settle, at most a probe's time, and never fails: for what may hang on a stuck client (closing it). */
  private async settledWithinProbe(pending: Promise<unknown>): Promise<void> {
    await pTimeout(pending, { milliseconds: this.probeTimeoutMs(), message: false }).catch(() => undefined);
  }

  private probeTimeoutMs(): number {
    return this.options.probeTimeoutMs ?? 2000;
  }
}

/** Connects a new client; on failure closes it and throws StoreUnavailableError with the driver's reason, or the mapped error. */
async function connectClient(environment: ConnectionEnvironment, uri: string, options: MongoClientOptions): Promise<MongoClient> {
  const client = environment.createClient(uri, options);
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.close().catch(() => undefined);
    const mapped = toStoreError(error);
    throw mapped instanceof StoreUnavailableError ? new StoreUnavailableError(unreachableReason(error), { cause: error }) : mapped;
  }
}

/** The options of the store's own clients (not the watchdog's probes): command monitoring when observed. */
function storeClientOptions(options: MongoConnectionOptions, observer: ConnectionObserver): MongoClientOptions {
  return { ...clientOptions(options), ...(observer.onCommand && { monitorCommands: true }) };
}

/** Only options that were given: the driver's defaults stand for the rest. */
export function clientOptions(options: MongoConnectionOptions): MongoClientOptions {
  const selection = options.serverSelectionTimeoutMS;
  return {
    appName: 'loyalty-server',
    // Optional record fields that are undefined are left out, not stored as null.
    ignoreUndefined: true,
    // A server that comes back is found within a couple of seconds (the driver checks every 10 s by default).
    heartbeatFrequencyMS: 2000,
    ...(selection !== undefined && { serverSelectionTimeoutMS: selection, connectTimeoutMS: Math.min(selection, 10_000) }),
    ...(options.socketTimeoutMS !== undefined && { socketTimeoutMS: options.socketTimeoutMS }),
    ...(options.maxPoolSize !== undefined && { maxPoolSize: options.maxPoolSize }),
  };
}
