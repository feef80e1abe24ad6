import type { Application, Express, Request, Response } from 'express';
import { isSnapshot } from '../domain/snapshot';

const jsonContentType = 'application/json; charset=utf-8';

/**
 * `res.json` of this app: the bytes Express would send, written with one
 * `writeHead` call (Content-Type and Content-Length given to it, together
 * with the pending headers: see `response-headers.ts`) instead of Express's
 * `res.send`, which sets each header on its own and checks for cases that
 * cannot apply here.
 *
 * A frozen snapshot (`freezeSnapshot`) is serialised once and the same bytes
 * go to every request that answers with it: a listing of a hundred
 * definitions is about 50 kB of JSON, and stringifying it was a large part of
 * each request.
 *
 * It replaces `app.response.json`, the prototype every response of this app
 * inherits, so whatever wraps `res.json` per request (the response validator
 * in tests) still sees the value first, then reaches this. The bytes are the
 * ones Express would send: `JSON.stringify` with no replacer, spaces or
 * escaping (the app sets none; if one is set, Express's own `res.json` takes
 * over) and `Content-Type: application/json; charset=utf-8`. Anything but an
 * object or array, a Content-Type set already, or a status without a body
 * goes to Express's `res.json` too.
 *
 * Never a 304: the app sets no ETag or Last-Modified, and the spec documents
 * no conditional requests (Express would still answer `If-None-Match: *`
 * with a 304; this does not).
 */
export function sendJsonDirectly(app: Express): void {
  const expressJson = app.response.json;

  app.response.json = function json(this: Response, body?: unknown) {
    if (typeof body !== 'object' || body === null || !plainResponse(this) || !plainJsonSettings(this.app)) {
      return expressJson.call(this, body);
    }
    const bytes = jsonBytes(body);
    this.writeHead(this.statusCode, ['Content-Type', jsonContentType, 'Content-Length', String(bytes.length)]);
    this.end(bytes);
    return this;
  };
}

/**
 * `res.json(body)`, except for a HEAD request: then the status and headers
 * it would send (Content-Length included), and no body. Not through
 * `res.json` then: the response validator (tests) would see a body where
 * the spec's HEAD operation documents none.
 */
export function answerJson(req: Request, res: Response, body: object): void {
  if (req.method !== 'HEAD') {
    res.json(body);
    return;
  }
  res.writeHead(res.statusCode, ['Content-Type', jsonContentType, 'Content-Length', String(jsonBytes(body).length)]);
  res.end();
}

/** Frozen snapshots are serialised once; see `sendJsonDirectly`. */
const serialised = new WeakMap<object, Buffer>();

function jsonBytes(body: object): Buffer {
  let bytes = isSnapshot(body) ? serialised.get(body) : undefined;
  if (!bytes) {
    bytes = Buffer.from(JSON.stringify(body), 'utf8');
    if (isSnapshot(body)) serialised.set(body, bytes);
  }
  return bytes;
}

/** An answer `res.send` would send as is: a status with a body, no Content-Type chosen, no validators that could make it a 304. */
function plainResponse(res: Response): boolean {
  return (
    res.statusCode !== 204 &&
    res.statusCode !== 205 &&
    res.statusCode !== 304 &&
    !res.headersSent &&
    !res.hasHeader('Content-Type') &&
    !res.hasHeader('ETag') &&
    !res.hasHeader('Last-Modified')
  );
}

function plainJsonSettings(app: Application): boolean {
  return app.get('json replacer') === undefined && app.get('json spaces') === undefined && !app.get('json escape');
}
