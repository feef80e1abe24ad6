import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a database, for outages on demand: `cut()` resets
 * every connection through it and refuses new ones, as a server that went
 * away does; `stall()` keeps every connection open and accepts new ones but
 * passes nothing either way, as a network that drops packets does (the
 * client learns of it only from its own timeouts); `restore()` ends either
 * (a stalled connection is then reset, as its peer would have given up on
 * it) and passes traffic again on the same port. Point a store at
 * `throughProxy(uri, proxy)` instead of the database's own address.
 */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  stall(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let stalled = false;
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };
  /** Reads and drops what arrives (so the peer's writes are not refused), passing nothing on. */
  const swallow = (socket: Socket) => {
    socket.unpipe();
    socket.removeAllListeners('data');
    socket.on('data', () => undefined);
    socket.resume();
  };
  const listen = (port: number): Promise<Server> =>
    new Promise((resolve, reject) => {
      const server = createServer((client) => {
        track(client);
        client.on('error', () => client.destroy());
        if (stalled) {
          swallow(client);
          return;
        }
        const upstream = connect(target);
        track(upstream);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server));
    });

  let server: Server | null = await listen(0);
  const port = (server.address() as { port: number }).port;
  const stop = async () => {
    const closing = server;
    server = null;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  return {
    port,
    cut: async () => {
      const closing = stop();
      for (const socket of open) socket.resetAndDestroy();
      await closing;
    },
    stall: () => {
      stalled = true;
      for (const socket of open) swallow(socket);
    },
    restore: async () => {
      if (stalled) {
        stalled = false;
        for (const socket of open) socket.resetAndDestroy();
      }
      server ??= await listen(port);
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await stop();
    },
  };
}

/** Host and port of a single-host `mongodb://` URI, or null for anything else (several hosts, SRV). */
export function singleMongoHost(uri: string): { host: string; port: number } | null {
  const match = /^mongodb:\/\/(?:[^@/]*@)?([^/,?:]+)(?::(\d+))?(?:[/?]|$)/.exec(uri);
  return match ? { host: match[1]!, port: Number(match[2] ?? 27017) } : null;
}

/** `uri` with its single host replaced by the proxy's address (credentials and options kept). */
export function throughProxy(uri: string, proxy: TcpProxy): string {
  const rewritten = uri.replace(/^(mongodb:\/\/(?:[^@/]*@)?)[^/,?]+/, `$1127.0.0.1:${proxy.port}`);
  return /[?&]directConnection=/.test(rewritten) ? rewritten : `${rewritten}${rewritten.includes('?') ? '&' : rewritten.includes('/', 10) ? '?' : '/?'}directConnection=true`;
}
