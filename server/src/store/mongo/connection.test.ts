import type { CommandStartedEvent, MongoClient, MongoClientOptions } from 'mongodb';
import { StoreUnavailableError } from '../port';
import { MongoConnection, type ConnectionEnvironment } from './connection';
import { systemError } from '../test-support/raw-errors';
import { eventually } from '../../test-support/time';

/*
 * The watchdog against fake clients: the database can be up or down, and a
 * client can be stuck (its pings never settle, as with the driver's monitor
 * parked on a closed socket) while a fresh client would get through.
 */

type Behaviour = 'ok' | 'down' | 'stuck';

class FakeWorld implements ConnectionEnvironment {
  database: 'up' | 'down' = 'up';
  /** What the next clients made do once the database is up. */
  nextClients: Behaviour = 'ok';
  clock = 0;
  readonly clients: Array<{
    behaviour: Behaviour;
    closed: boolean;
    client: MongoClient;
    heartbeat: () => void;
    options: MongoClientOptions;
    /** The client sending a command, as its command monitoring would report it. */
    send: (commandName: string) => void;
  }> = [];

  now(): number {
    return this.clock;
  }

  createClient(_uri: string, options: MongoClientOptions): MongoClient {
    const listeners: Array<() => void> = [];
    const commandListeners: Array<(event: CommandStartedEvent) => void> = [];
    // The driver's monitor hearing the server: a heartbeat answered.
    const heartbeat = () => listeners.forEach((listener) => listener());
    const send = (commandName: string) => {
      if (!options.monitorCommands) return;
      const event = { commandName, command: { [commandName]: 'members' } } as unknown as CommandStartedEvent;
      commandListeners.forEach((listener) => listener(event));
    };
    const entry = { behaviour: this.nextClients, closed: false, client: undefined as unknown as MongoClient, heartbeat, options, send };
    const answer = async (): Promise<unknown> => {
      if (entry.behaviour === 'stuck') return new Promise(() => undefined);
      if (this.database === 'down' || entry.behaviour === 'down') throw systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:27017');
      return { ok: 1 };
    };
    entry.client = {
      connect: async () => {
        await answer();
        return entry.client;
      },
      db: () => ({ command: answer, marker: this.clients.indexOf(entry) }),
      close: async () => {
        entry.closed = true;
      },
      on: (event: string, listener: () => void) => {
        if (event === 'serverHeartbeatSucceeded') listeners.push(listener);
        if (event === 'commandStarted') commandListeners.push(listener);
      },
    } as unknown as MongoClient;
    this.clients.push(entry);
    return entry.client;
  }
}

async function open(world: FakeWorld, extra: Record<string, number> = {}) {
  const events: string[] = [];
  const connection = await MongoConnection.open(
    {
      uri: 'mongodb://db:27017',
      dbName: 'loyalty',
      watchdogIntervalMs: 0,
      probeTimeoutMs: 50,
      minRebuildIntervalMs: 1000,
      stuckLimitMs: 60_000,
      heartbeatSilenceMs: 1000,
      ...extra,
    },
    { onCheck: (reachable) => events.push(reachable ? 'reachable' : 'unreachable'), onRebuild: (outcome) => events.push(outcome) },
    world,
  );
  return { connection, events };
}

describe('MongoConnection watchdog', () => {
  it('replaces a stuck client when a fresh one gets through, and the store answers again through the new one', async () => {
    const world = new FakeWorld();
    const { connection, events } = await open(world);
    const first = connection.db;
    world.clients[0]!.behaviour = 'stuck';
    world.clock = 5000;

    // Seen once: perhaps a client that has not noticed yet the database is back.
    await connection.check();
    expect(connection.currentGeneration).toBe(0);
    world.clock = 8000;
    await connection.check();

    expect(events).toEqual(['unreachable', 'unreachable', 'replaced']);
    expect(connection.currentGeneration).toBe(1);
    expect(connection.db).not.toBe(first);
    await expect(connection.ping()).resolves.toBeUndefined();
    expect(connection.health()).toMatchObject({ rebuilds: 1, recoverable: true });

    await connection.check();
    expect(connection.health()).toEqual({ reachable: true, stuckSince: null, recoverable: true, rebuilds: 1 });
    // Calls still on the old client get until their deadline; closing the connection closes it too.
    expect(world.clients[0]!.closed).toBe(false);
    await connection.close();
    expect(world.clients[0]!.closed).toBe(true);
  });

  it('reports the commands of every store client, a replacement too, with monitoring on only when observed; the probes are not watched', async () => {
    const world = new FakeWorld();
    const sent: string[] = [];
    const connection = await MongoConnection.open(
      { uri: 'mongodb://db:27017', dbName: 'loyalty', watchdogIntervalMs: 0, probeTimeoutMs: 50, minRebuildIntervalMs: 1000, heartbeatSilenceMs: 1000 },
      { onCommand: (event) => sent.push(`${event.commandName} ${String(event.command[event.commandName])}`) },
      world,
    );
    world.clients[0]!.send('find');
    world.clients[0]!.behaviour = 'stuck';
    world.clock = 5000;
    await connection.check();
    world.clock = 8000;
    await connection.check();
    expect(connection.currentGeneration).toBe(1);
    const replacement = world.clients.at(-1)!;
    replacement.send('aggregate');

    expect(sent).toEqual(['find members', 'aggregate members']);
    // The first client, the two probes, the replacement.
    expect(world.clients.map((c) => c.options.monitorCommands === true)).toEqual([true, false, false, true]);
    await connection.close();

    const unobserved = new FakeWorld();
    const plain = await MongoConnection.open({ uri: 'mongodb://db:27017', dbName: 'loyalty', watchdogIntervalMs: 0 }, {}, unobserved);
    expect(unobserved.clients[0]!.options.monitorCommands).toBeUndefined();
    await plain.close();
  });

  it('leaves a busy client alone (its pings time out, its monitor still hears the server), and replaces it once that stops', async () => {
    const world = new FakeWorld();
    const { connection, events } = await open(world);
    world.clients[0]!.behaviour = 'stuck';
    for (const at of [5000, 8000]) {
      world.clock = at - 500;
      world.clients[0]!.heartbeat();
      world.clock = at;
      await connection.check();
    }
    expect(events).toEqual(['unreachable', 'unreachable']);
    expect(connection.health()).toMatchObject({ stuckSince: null, rebuilds: 0 });
    expect(world.clients).toHaveLength(1); // no fresh client even asked

    // Heartbeats stop too: stuck after all.
    for (const at of [11_000, 14_000]) {
      world.clock = at;
      await connection.check();
    }
    expect(events.slice(2)).toEqual(['unreachable', 'unreachable', 'replaced']);
    // The old client's heartbeats no longer count once it is replaced.
    world.clients[0]!.heartbeat();
    world.clients.at(-1)!.behaviour = 'stuck';
    world.clock = 20_000;
    await connection.check();
    world.clock = 23_000;
    await connection.check();
    expect(connection.health().rebuilds).toBe(2);
    await connection.close();
  });

  it('forgets a replaced client once it is closed, and closes without waiting on a client that never finishes closing', async () => {
    const world = new FakeWorld();
    const { connection } = await open(world, { operationDeadlineMs: 20 });
    world.clients[0]!.behaviour = 'stuck';
    world.clock = 5000;
    await connection.check();
    world.clock = 8000;
    await connection.check();
    expect(connection.health().rebuilds).toBe(1);
    const staleClients = (connection as unknown as { staleClients: Set<unknown> }).staleClients;
    expect(staleClients.size).toBe(1);
    // Closed once its operations' deadline (20 ms) has passed.
    await eventually('the replaced client closed', () => world.clients[0]!.closed && staleClients.size === 0);

    world.clients.at(-1)!.client.close = () => new Promise(() => undefined);
    await expect(connection.close()).resolves.toBeUndefined();
  });

  it('leaves the client alone while the database itself is down (a fresh client fails too)', async () => {
    const world = new FakeWorld();
    const { connection, events } = await open(world);
    world.database = 'down';
    world.clock = 5000;
    await connection.check();
    expect(events).toEqual(['unreachable']);
    expect(connection.currentGeneration).toBe(0);
    expect(connection.health()).toEqual({ reachable: false, stuckSince: null, recoverable: true, rebuilds: 0 });
  });

  it('replaces at most once per minRebuildIntervalMs', async () => {
    const world = new FakeWorld();
    const { connection } = await open(world);
    world.clients[0]!.behaviour = 'stuck';
    world.clock = 4500;
    await connection.check();
    world.clock = 5000;
    await connection.check();
    expect(connection.health().rebuilds).toBe(1);
    // The replacement gets stuck too (a fresh probe does not): it is not replaced again at once.
    world.clients.at(-1)!.behaviour = 'stuck';
    world.clock = 5500;
    await connection.check();
    expect(connection.health().rebuilds).toBe(1);
    world.clock = 6000;
    await connection.check();
    expect(connection.health().rebuilds).toBe(2);
  });

  it('says the process cannot recover once the client stays stuck past stuckLimitMs', async () => {
    const world = new FakeWorld();
    const { connection } = await open(world, { stuckLimitMs: 10_000 });
    world.clients[0]!.behaviour = 'stuck';
    // Every new client the watchdog makes gets stuck as soon as it is in use.
    const create = world.createClient.bind(world);
    world.createClient = (uri, options) => {
      const client = create(uri, options);
      const entry = world.clients.at(-1)!;
      const connect = client.connect.bind(client);
      client.connect = async () => {
        const connected = await connect();
        // A probe pings right after connecting; a replacement is used later.
        setImmediate(() => {
          if (!entry.closed) entry.behaviour = 'stuck';
        });
        return connected;
      };
      return client;
    };
    world.clock = 5000;
    await connection.check();
    expect(connection.health().recoverable).toBe(true);
    world.clock = 16_000;
    await new Promise((resolve) => setImmediate(resolve));
    await connection.check();
    expect(connection.health()).toMatchObject({ reachable: false, recoverable: false });
    expect(connection.health().stuckSince).toEqual(new Date(5000));
  });

  it('answers an operation that never settles as unavailable at its deadline', async () => {
    const world = new FakeWorld();
    const { connection } = await open(world, { operationDeadlineMs: 30 });
    await expect(connection.run(() => new Promise(() => undefined))).rejects.toThrow(StoreUnavailableError);
    await expect(connection.run(() => Promise.reject(systemError('EPIPE', 'This socket has been ended by the other party')))).rejects.toThrow(
      StoreUnavailableError,
    );
    await expect(connection.run(async () => 'answer')).resolves.toBe('answer');
  });

  it('fails to open with the driver reason when the database is down', async () => {
    const world = new FakeWorld();
    world.database = 'down';
    await expect(open(world)).rejects.toThrow(/^connect ECONNREFUSED 127\.0\.0\.1:27017$/);
    expect(world.clients[0]!.closed).toBe(true);
  });
});
