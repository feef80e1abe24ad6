import express, { type RequestHandler } from 'express';
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
  return [
    requireJsonContentType,
    // `inflate: false`: a compressed body is 415, never a decompression fault.
    express.json({ limit: limitBytes, strict: true, type: 'application/json', inflate: false }),
    limitNesting,
  ];
}

/** No document of the spec nests deeper than this; 16 KiB could nest thousands of levels. */
export const maxBodyDepth = 16;

/**
 * A deeply nested body is refused before anything walks it recursively
 * (the validator, the pre-check, or `JSON.stringify` echoing an invalid
 * catalogue item), which could overflow the stack.
 */
const limitNesting: RequestHandler = (req, _res, next) => {
  if (depthOf(req.body) > maxBodyDepth) {
    throw new AppError('INVALID_REQUEST', 'Request does not match the API specification', {
      details: [{ path: '/body', message: `must not nest deeper than ${maxBodyDepth} levels` }],
    });
  }
  next();
};

/** Nesting depth of a parsed JSON value, without recursion. */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > maxBodyDepth) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * Runs before the parser, which would skip (not reject) another content
 * type. An empty body passes whatever its type: the schema reports it.
 */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
  const declaresBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
  if (declaresBody && !req.is('application/json')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
  next();
};
