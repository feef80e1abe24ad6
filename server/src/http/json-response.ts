import type { Application, Express, Response } from 'express';
import { isSnapshot } from '../domain/snapshot';

/**
 * `res.json` of this app, serialising a frozen snapshot (`freezeSnapshot`)
 * once and sending the same bytes to every request that answers with it: a
 * listing of a hundred definitions is about 50 kB of JSON, and stringifying
 * it was a large part of each request. Anything else goes through Express's
 * own `res.json`.
 *
 * It replaces `app.response.json`, the prototype every response of this app
 * inherits, so whatever wraps `res.json` per request (the response validator
 * in tests) still sees the value first, then reaches this. The bytes are the
 * ones Express would send: `JSON.stringify` with no replacer, spaces or
 * escaping (the app sets none; if one is set, the cache steps aside) and
 * `Content-Type: application/json; charset=utf-8`.
 */
export function serialiseSnapshotsOnce(app: Express): void {
  const expressJson = app.response.json;
  const serialised = new WeakMap<object, Buffer>();

  app.response.json = function json(this: Response, body?: unknown) {
    if (!isSnapshot(body) || this.get('Content-Type') !== undefined || !plainJsonSettings(this.app)) {
      return expressJson.call(this, body);
    }
    let bytes = serialised.get(body);
    if (!bytes) {
      bytes = Buffer.from(JSON.stringify(body), 'utf8');
      serialised.set(body, bytes);
    }
    this.setHeader('Content-Type', 'application/json; charset=utf-8');
    if (!plainResponse(this)) return this.send(bytes);
    // What `res.send` would do here, without its checks for cases that
    // cannot apply (no ETag or Last-Modified, so never a 304; Node leaves
    // the body out of a HEAD answer itself).
    this.setHeader('Content-Length', bytes.length);
    this.end(bytes);
    return this;
  };
}

/** A response `res.send` would send as is: a status with a body, no validators that could make it a 304. */
function plainResponse(res: Response): boolean {
  return res.statusCode !== 204 && res.statusCode !== 304 && !res.hasHeader('ETag') && !res.hasHeader('Last-Modified');
}

function plainJsonSettings(app: Application): boolean {
  return app.get('json replacer') === undefined && app.get('json spaces') === undefined && !app.get('json escape');
}
