/**
 * The baselines: a bare Express app answering the bench's routes with the
 * bytes the real server sent for them (status, headers and body captured once
 * from it), precomputed, doing no work per request: no auth, no validation,
 * no logging, no body parsing. Runs in its own process, like the server.
 *
 *   node bench/dist/bench/bare-server.js <responses.json>
 *
 * Listens on the port the file names and tells its parent over IPC when it is
 * ready.
 */
import { readFileSync } from 'node:fs';
import { createServer, type OutgoingHttpHeaders, type Server } from 'node:http';
import express from 'express';

export interface CapturedResponse {
  method: 'get' | 'put' | 'post';
  /** Express path with `:params`. */
  path: string;
  status: number;
  headers: Record<string, string>;
  /** The body, base64. */
  body: string;
  /**
   * The server's `304` to a request of this route saying `If-None-Match`
   * (Operation A): then bare Express answers such a request as Express
   * itself does (its own ETag of the body, computed per request, and `304`
   * when the request names it), raw node:http with these headers at once.
   */
  notModified?: { headers: Record<string, string> };
}

export interface BareConfig {
  port: number;
  /** Plain Express (the targets' baseline) or raw node:http. */
  kind: 'express' | 'raw';
  responses: CapturedResponse[];
}

/** Headers Node writes itself for every response. */
const perConnection = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

function main(): void {
  const file = process.argv[2];
  if (!file) throw new Error('usage: bare-server.js <responses.json>');
  const config = JSON.parse(readFileSync(file, 'utf8')) as BareConfig;
  const server = serverOf(config);
  server.listen(config.port, '127.0.0.1', () => process.send?.({ ready: true }));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

function serverOf(config: BareConfig): Server {
  return config.kind === 'raw' ? rawServer(config.responses) : expressServer(config);
}

/** The captured answer, ready to replay: headers without Node's own, and the body's length. */
function replay(response: CapturedResponse): { status: number; headers: OutgoingHttpHeaders; body: Buffer } {
  const body = Buffer.from(response.body, 'base64');
  const headers = withoutPerConnection(response.headers);
  headers['content-length'] = String(body.length);
  return { status: response.status, headers, body };
}

function withoutPerConnection(captured: Record<string, string>): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(captured)) {
    if (!perConnection.has(name.toLowerCase())) headers[name] = value;
  }
  return headers;
}

function expressServer(config: BareConfig): Server {
  const app = express();
  app.disable('x-powered-by');
  // Express's own ETags (weak, of the body): only `res.send` makes them, which only a conditional request reaches.
  app.set('etag', 'weak');
  for (const response of config.responses) {
    const { status, headers, body } = replay(response);
    // What `res.send` is given: Express sets the length, and an ETag of its own.
    const { 'content-length': _length, etag: _tag, ...sendHeaders } = lowerCased(headers);
    app[response.method](response.path, (req, res) => {
      if (response.notModified && req.headers['if-none-match'] !== undefined) res.status(status).set(sendHeaders).send(body);
      else res.writeHead(status, headers).end(body);
    });
  }
  return createServer(app);
}

function rawServer(responses: CapturedResponse[]): Server {
  const routes = responses.map((response) => ({
    method: response.method.toUpperCase(),
    pattern: new RegExp(`^${response.path.replace(/:[A-Za-z0-9_]+/g, '[^/?]+')}(?:\\?|$)`),
    ...replay(response),
    notModified: response.notModified && withoutPerConnection(response.notModified.headers),
  }));
  return createServer((req, res) => {
    const route = routes.find((r) => r.method === req.method && r.pattern.test(req.url ?? ''));
    // Read the request to its end, as any server must before the connection is reused.
    req.resume();
    if (!route) res.writeHead(404).end();
    else if (route.notModified && req.headers['if-none-match'] !== undefined) res.writeHead(304, route.notModified).end();
    else res.writeHead(route.status, route.headers).end(route.body);
  });
}

function lowerCased(headers: OutgoingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
}

main();
