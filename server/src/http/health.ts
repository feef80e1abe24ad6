import { Router } from 'express';
import { serviceUnavailable } from '../domain/errors';
import type { Store } from '../store/port';

/** How long /readyz waits for the store before it calls it unavailable. */
const readinessTimeoutMs = 1000;

/**
 * `/healthz`: the process runs. `/readyz`: the store answers within a second
 * (load balancers stop routing to an instance whose store is down).
 */
export function healthRoutes(store: Pick<Store, 'ping'>): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    if (await answersWithin(store.ping(), readinessTimeoutMs)) {
      res.json({ status: 'ok' });
    } else {
      res.status(503).json(serviceUnavailable().toBody());
    }
  });
  return router;
}

/** True when `pending` resolves within `ms`; false when it rejects or takes longer. */
async function answersWithin(pending: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([pending.then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
