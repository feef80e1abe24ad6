import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Request, Response } from 'express';

/** A client's id is reused only if it is a short, plain token (safe to log and echo). */
const saneRequestId = /^[A-Za-z0-9._-]{1,128}$/;

export const requestIdHeader = 'X-Request-Id';

const requestIdKey = Symbol('request id');

/**
 * Gives every request an id: the caller's `X-Request-Id` when sane, else a
 * random UUID. Kept in `res.locals`, Express's place for per-request state
 * (the access log's `requestId`, see `requestIdOf`), and echoed on every
 * response, errors included.
 */
export function assignRequestId(req: Request, res: Response): void {
  const offered = req.get(requestIdHeader);
  const id = offered !== undefined && saneRequestId.test(offered) ? offered : randomUUID();
  (res.locals as Record<symbol, string>)[requestIdKey] = id;
  res.setHeader(requestIdHeader, id);
}

/** The id `requestId` gave the request of `res`; undefined before it ran. */
export function requestIdOf(res: ServerResponse): string | undefined {
  return (res as ServerResponse & { locals?: Record<symbol, string> }).locals?.[requestIdKey];
}
