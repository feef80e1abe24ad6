import { hash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../caching/bounded-cache';
import { answerJson, jsonBytes } from './json-response';

/*
 * Conditional requests (RFC 9110, 13.1.2), for the one answer the spec
 * gives an entity tag: Operation A's listing. The tag is strong: derived
 * from the bytes answered and from `scope` (what else the answer is for:
 * the client and the business unit), so it is the same on every process
 * for the same bytes, and it changes whenever they do.
 */

/** What any cache may do with a tagged answer: keep it for this client only, and ask again before each use. */
const revalidateEachTime = 'private, no-cache';

/**
 * `res.json(body)` (or its HEAD) with its `ETag` (`tag`, see `entityTag`)
 * and `Cache-Control`, or a `304` without a body when `If-None-Match` names
 * the tag (or is `*`). Every check of the request has passed by then: a
 * `304` says only that the answer would be the same.
 */
export function answerTagged(req: Request, res: Response, body: object, tag: string): void {
  res.setHeader('ETag', tag);
  res.setHeader('Cache-Control', revalidateEachTime);
  if (noneMatchNames(req.headers['if-none-match'], tag)) {
    res.status(304).end();
    return;
  }
  answerJson(req, res, body);
}

/**
 * The tags of a kept answer's bytes (a snapshot's bytes are made once:
 * json-response.ts), by scope: the same answer to the same client is
 * tagged once, not hashed per request.
 */
const tagsOfBytes = new WeakMap<Buffer, { digest: string; byScope: LRUCache<string, string> }>();
/** Scopes (clients) whose tag one answer keeps at most; past it the least recently asked are made again. */
const maxScopesPerAnswer = 1_000;

/** A strong entity tag of `body` as `res.json` sends it: 128 bits of a SHA-256 over its bytes' digest and the scope, quoted. */
export function entityTag(body: object, scope: readonly string[]): string {
  const bytes = jsonBytes(body);
  let tags = tagsOfBytes.get(bytes);
  if (!tags) tagsOfBytes.set(bytes, (tags = { digest: hash('sha256', bytes, 'base64url'), byScope: boundedCache({ maxEntries: maxScopesPerAnswer }) }));
  const key = JSON.stringify(scope);
  let tag = tags.byScope.get(key);
  if (tag === undefined) {
    tag = `"${hash('sha256', JSON.stringify([tags.digest, ...scope]), 'base64url').slice(0, 22)}"`;
    tags.byScope.set(key, tag);
  }
  return tag;
}

/**
 * Whether `If-None-Match` names `tag`: `*`, or a comma-separated list of
 * entity tags compared weakly (a `W/` prefix ignored). The header is bounded
 * by the server's 16 KiB header limit; anything else in it names no tag.
 */
export function noneMatchNames(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  for (const candidate of header.split(',')) {
    const trimmed = candidate.trim();
    if ((trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed) === tag) return true;
  }
  return false;
}
