import type { IncomingMessage } from 'node:http';
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../domain/errors';

/**
 * For the one operation that takes a body: a body that is not
 * `application/json` is 415; a JSON body larger than `limitBytes` is 413
 * (raised by the parser), malformed JSON is 400. `strict` accepts only
 * objects and arrays at the top level. `JSON.parse` keeps `__proto__` as a
 * plain own key, so nothing is polluted; the schema then rejects it as an
 * unknown field.
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  // `inflate: false`: a compressed body is 415, never a decompression fault.
  // `type`: the parser reads the body only when it is JSON, judged as below.
  return [requireJsonContentType, express.json({ limit: limitBytes, strict: true, type: (req) => isJson(req as Request), inflate: false })];
}

const plainContentTypes = new Set(['application/json', 'application/json; charset=utf-8']);

/** The usual JSON content types, as clients send them (any case). */
export function isPlainJsonContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && plainContentTypes.has(contentType.toLowerCase());
}

/**
 * Whether the body is JSON: the usual content types at a glance, any other
 * as Express's `req.is` (type-is) judges it, which parses the header. Both
 * the check below and the parser ask, so each asks cheaply.
 */
function isJson(req: Request): boolean {
  return isPlainJsonContentType(req.headers['content-type']) || Boolean(req.is('application/json'));
}

/**
 * Whether the request comes with a body: a chunked one, or a length above
 * zero (`Content-Length: 0` and `00` alike say there is none).
 */
export function declaresBody(req: Pick<IncomingMessage, 'headers'>): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
}

/**
 * Runs before the parser, which would skip (not reject) another content
 * type. An empty body passes whatever its type: the schema reports it.
 */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
  if (declaresBody(req) && !isJson(req)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
  next();
};
