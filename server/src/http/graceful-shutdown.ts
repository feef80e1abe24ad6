import type { Server, ServerResponse } from 'node:http';

export type DrainOutcome = 'drained' | 'forced';

/**
 * Prepares `server` for a graceful stop; call right after creating it. The
 * returned function stops accepting connections, lets requests in flight
 * finish, closes kept-alive connections as soon as they fall idle (instead of
 * waiting out their keep-alive timeout), and after `graceMs` cuts whatever is
 * left. It resolves once every connection is closed.
 */
export function prepareGracefulClose(server: Server): (graceMs: number) => Promise<DrainOutcome> {
  const inFlight = new Set<ServerResponse>();
  let closing = false;

  // One listener function for every response (no closure per request).
  function onResponseClose(this: ServerResponse): void {
    this.removeListener('close', onResponseClose);
    inFlight.delete(this);
    // The connection may now be idle: close it rather than keep it alive.
    if (closing) setImmediate(() => server.closeIdleConnections());
  }
  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    if (closing) res.setHeader('Connection', 'close');
    res.on('close', onResponseClose);
  });

  return (graceMs) =>
    new Promise((resolve) => {
      closing = true;
      // Answers not yet started tell the client this connection ends with them.
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      let outcome: DrainOutcome = 'drained';
      const deadline = setTimeout(() => {
        outcome = 'forced';
        server.closeAllConnections();
      }, graceMs);
      server.close(() => {
        clearTimeout(deadline);
        resolve(outcome);
      });
      server.closeIdleConnections();
    });
}

/**
 * The first phase of a stop: the process says it is not ready (`/readyz`
 * 503) while it keeps accepting and answering, so that load balancers and
 * Kubernetes Services stop sending it new connections before any is
 * refused. `begin` starts it and resolves once `delayMs` have passed, or
 * when `skip` ends it early.
 */
export class ShutdownDelay {
  private begun = false;
  private end: (() => void) | null = null;

  /** True from the stop signal on: readiness fails. */
  get stopping(): boolean {
    return this.begun;
  }

  begin(delayMs: number): Promise<void> {
    this.begun = true;
    if (delayMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.skip(), delayMs);
      this.end = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Ends the delay under way; false when there is none (not begun, or over). */
  skip(): boolean {
    const end = this.end;
    this.end = null;
    end?.();
    return end !== null;
  }
}
