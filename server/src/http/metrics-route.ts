import { createServer, type Server } from 'node:http';
import { Router } from 'express';
import type { Metrics } from '../metrics';

/** `GET /metrics`: Prometheus text, no API key (outside `/client`; keep it off the public network). */
export function metricsRoutes(metrics: Metrics): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    res.set('Content-Type', metrics.contentType).set('Cache-Control', 'no-store').send(await metrics.render());
  });
  return router;
}

/** `/metrics` on a port of its own (METRICS_PORT), with nothing else: 404 for any other request. */
export function metricsServer(metrics: Metrics): Server {
  return createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
      return;
    }
    metrics.render().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' }).end(text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Metrics unavailable\n'),
    );
  });
}
