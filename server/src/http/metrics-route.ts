import { createServer, type Server } from 'node:http';
import type { Metrics } from '../metrics';

/**
 * `GET /metrics`, Prometheus text, on a port of its own (METRICS_PORT) with
 * nothing else: 404 for any other request, and no CORS header, so no page
 * can read it. No API key: keep the port inside your network. Never on the
 * API's port, where anyone who can call the API would read it.
 */
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
