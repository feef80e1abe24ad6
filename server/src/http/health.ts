import { Router } from 'express';
import pTimeout from 'p-timeout';
import { AppError, serviceUnavailable } from '../domain/errors';
import type { StoreLifecycle } from '../store/port';

/** How long /readyz waits for the store before it calls it unavailable. */
const readinessTimeoutMs = 1000;

/**
 * `/healthz`: the process runs and can recover by itself; 503 when it cannot
 * (its store client is stuck beyond repair: an orchestrator should restart
 * it). `/readyz`: the store answers within a second (load balancers stop
 * routing to an instance whose store is down, and route to it again once it
 * answers), and the process is not stopping (503 from the stop signal on,
 * while it still serves: see `ShutdownDelay`).
 */
export function healthRoutes(store: Pick<StoreLifecycle, 'ping'>, liveness: Liveness = alwaysLive, stopping: () => boolean = never): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store');
    const state = liveness();
    if (state.live) res.json({ status: 'ok' });
    else res.status(503).json(new AppError('SERVICE_UNAVAILABLE', `Cannot recover without a restart: ${state.reason}`).toBody());
  });
  router.get('/readyz', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    if (stopping()) {
      res.status(503).json(new AppError('SERVICE_UNAVAILABLE', 'Shutting down').toBody());
    } else if (await answersWithin(store.ping(), readinessTimeoutMs)) {
      res.json({ status: 'ok' });
    } else {
      res.status(503).json(serviceUnavailable().toBody());
    }
  });
  return router;
}

/** `/healthz`'s question: can this process still recover by itself? */
export type Liveness = () => { live: true } | { live: false; reason: string };

const alwaysLive: Liveness = () => ({ live: true });
const never = (): boolean => false;

/** True when `pending` resolves within `ms`; false when it rejects or takes longer. */
function answersWithin(pending: Promise<unknown>, ms: number): Promise<boolean> {
  return pTimeout(
    pending.then(
      () => true,
      () => false,
    ),
    { milliseconds: ms, fallback: () => false },
  );
}
