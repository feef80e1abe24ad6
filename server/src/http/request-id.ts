import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { addResponseHeader } from './response-headers';

/** A client's id is reused only if it is a short, plain token (safe to log and echo). */
const saneRequestId = /^[A-Za-z0-9._-]{1,128}$/;

export const requestIdHeader = 'X-Request-Id';

/**
 * Gives every request an id: the caller's `X-Request-Id` when sane, else a
 * random UUID. Stored as `req.id` (the access log's `requestId`) and echoed
 * on every response, errors included.
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const offered = req.get(requestIdHeader);
    const id = offered !== undefined && saneRequestId.test(offered) ? offered : randomUUID();
    req.id = id;
    addResponseHeader(res, requestIdHeader, id);
    next();
  };
}
