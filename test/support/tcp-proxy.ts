import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a database, for outages on demand: `cut()` resets
 * every connection through it and refuses new ones, as a server that went
 * away does; `restore()` accepts again on the same port. Point a store at
 * `uri(...)` instead of the database's own address.
 */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };
  const listen = (port: number): Promise<Server> =>
    new Promise((resolve, reject) => {
      const server = createServer((client) => {
        const upstream = connect(target);
        track(client);
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
    restore: async () => {
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
