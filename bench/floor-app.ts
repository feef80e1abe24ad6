/**
 * The floor: bare Express plus the work the server does on every request
 * whatever its store and domain do, which issue #19 requires to stay: the
 * security headers, the request id, the access log line (pino, as
 * `main.ts` sets it up) with the request metrics, the API key's and the
 * bearer token's SHA-256 looked up in a map, the rate limit with its
 * headers, and for Operation B the JSON body. It uses the server's own
 * compiled modules (`server/dist`), so each part costs what it costs there.
 *
 * Left out, so that this is a lower bound: request validation, the store
 * and its metrics, the domain, and serialising the answer (the captured
 * bytes are replayed). A server cannot cost less per request than this; its
 * throughput ratio to bare Express is the highest the server could reach.
 */
import { createServer, type OutgoingHttpHeaders, type Server } from 'node:http';
import path from 'node:path';
import express, { type RequestHandler, type Response } from 'express';
import pino, { type DestinationStream } from 'pino';

const serverDist = path.resolve(__dirname, '..', '..', 'server', 'dist');

/** The server's modules this needs, as compiled (loaded at run time: the bench compiles on its own). */
interface ServerModules {
  securityHeaders(): RequestHandler;
  requestId(): RequestHandler;
  accessLog(logger: unknown, onAnswered: (res: Response, seconds: number) => void): RequestHandler;
  rateLimitPerClient(perMinute: number): RequestHandler;
  jsonBody(limitBytes: number): RequestHandler[];
  hashSecret(secret: string): string;
  setAuthenticatedClient(res: Response, client: { clientId: string }, keyId: string): void;
  Metrics: new () => { observeRequest(operation: string, status: number, seconds: number): void };
  logDestination: Parameters<typeof pino.destination>[0];
}

function serverModules(): ServerModules {
  const load = (file: string): Record<string, unknown> => require(path.join(serverDist, file)) as Record<string, unknown>;
  return {
    ...load('http/security-headers.js'),
    ...load('http/request-id.js'),
    ...load('http/access-log.js'),
    ...load('http/rate-limit.js'),
    ...load('http/json-body.js'),
    ...load('domain/secrets.js'),
    ...load('http/locals.js'),
    ...load('metrics.js'),
    ...load('log-destination.js'),
  } as unknown as ServerModules;
}

export interface FloorResponse {
  method: 'get' | 'put';
  path: string;
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

/** The server's defaults (config.ts): 6,000 requests a minute per client, 16 KiB bodies. */
const rateLimitPerMinute = 6000;
const bodyLimitBytes = 16 * 1024;

export function floorServer(responses: FloorResponse[]): Server {
  const m = serverModules();
  // pino as main.ts builds it (stdout, which the bench sends to a file).
  const logger = pino({ level: 'info' }, pino.destination(m.logDestination) as DestinationStream);
  const metrics = new m.Metrics();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(m.securityHeaders(), m.requestId(), m.accessLog(logger, (res, seconds) => metrics.observeRequest('floor', res.statusCode, seconds)));
  const rateLimit = m.rateLimitPerClient(rateLimitPerMinute);
  for (const response of responses) {
    const { status, body } = response;
    // The middleware above sets the other headers the server sends.
    const headers = { 'content-type': response.headers['content-type'], 'content-length': response.headers['content-length'] };
    const bodyParsing = response.method === 'put' ? m.jsonBody(bodyLimitBytes) : [];
    app[response.method](response.path, authenticate(m), rateLimit, ...bodyParsing, (_req, res) => {
      res.writeHead(status, headers).end(body);
    });
  }
  return createServer(app);
}

/**
 * What authentication costs before the store: both secrets hashed and looked
 * up (in an empty set: a miss costs what a hit does), the client recorded
 * for the rate limit and the access log. The key's public id stands for its
 * client, so the rate limit counts per key as the server's does.
 */
function authenticate(m: ServerModules): RequestHandler {
  const knownDigests = new Set<string>();
  return (req, res, next) => {
    const apiKey = req.get('x-api-key') ?? '';
    const token = (req.get('authorization') ?? '').slice('Bearer '.length);
    knownDigests.has(m.hashSecret(apiKey));
    knownDigests.has(m.hashSecret(token));
    const keyId = apiKey.slice(0, apiKey.indexOf('.'));
    m.setAuthenticatedClient(res, { clientId: keyId }, keyId);
    next();
  };
}
