import type { Express, Request, Response } from 'express';
import { isSnapshot } from '../domain/snapshot';

/**
 * Answers are Express's own (`res.json`), with two rules of this API:
 *
 * - A frozen snapshot (`freezeSnapshot`: Operation A's cached listing of a
 *   business unit) is serialised once, and the same bytes go to every
 *   request answered with it: stringifying it per request was a large part
 *   of Operation A's cost (bench/README.md). The bytes are the ones
 *   `res.json` would send: `JSON.stringify` with no replacer, spaces or
 *   escaping (if the app ever sets one, Express's `res.json` takes over).
 *   It is installed on `app.response.json`, the prototype every response of
 *   the app inherits, so what wraps `res.json` per request (the response
 *   validator in tests) still sees the value first.
 * - Express never answers `304` by itself: it would call a GET fresh when
 *   it says `If-None-Match: *`, whatever the answer. The one conditional
 *   answer of the spec, Operation A's, decides itself (conditional.ts).
 */
export function answerJsonAsDocumented(app: Express): void {
  Object.defineProperty(app.request, 'fresh', { configurable: true, get: () => false });
  const expressJson = app.response.json;
  app.response.json = function json(this: Response, body?: unknown) {
    if (!isSnapshot(body) || !plainJsonSettings(this)) return expressJson.call(this, body);
    return this.type('json').send(serialisedOnce(body));
  };
}

/**
 * `res.json(body)`, except for a HEAD request: then the status and headers
 * it would send (Content-Length included), and no body (Express's `send`
 * ends a HEAD without one). Not through `res.json` then: the response
 * validator (tests) would see a body where the spec's HEAD operation
 * documents none.
 */
export function answerJson(req: Request, res: Response, body: object): void {
  if (req.method !== 'HEAD') {
    res.json(body);
    return;
  }
  res.type('json').send(jsonBytes(body));
}

/** The bytes `res.json(body)` sends: for a snapshot, the same Buffer every time. */
export function jsonBytes(body: object): Buffer {
  return isSnapshot(body) ? serialisedOnce(body) : Buffer.from(JSON.stringify(body), 'utf8');
}

const serialised = new WeakMap<object, Buffer>();

function serialisedOnce(snapshot: object): Buffer {
  let bytes = serialised.get(snapshot);
  if (!bytes) serialised.set(snapshot, (bytes = Buffer.from(JSON.stringify(snapshot), 'utf8')));
  return bytes;
}

function plainJsonSettings(res: Response): boolean {
  const { app } = res;
  return app.get('json replacer') === undefined && app.get('json spaces') === undefined && !app.get('json escape');
}
