import type { ServerResponse } from 'node:http';
import type { Express } from 'express';

/*
 * Headers every answer of this app carries (request id, security headers,
 * rate limit) are collected per response as a flat name/value list and handed
 * to Node in the one `writeHead` call that starts the answer, instead of one
 * `setHeader` each. Node validates, lower-cases and stores every `setHeader`,
 * then walks the stored headers again when it writes them: for the seventeen
 * headers of an answer that was the largest cost a request had over bare
 * Express (see bench/README.md). Handed over in `writeHead`, each is
 * validated and written once, as in the bare app.
 *
 * The rules, so that nothing changes on the wire:
 * - every answer goes through `writeHead` (Node's implicit headers call it
 *   too), and there the pending headers are added: none can be lost;
 * - a header given to `writeHead` or set with `setHeader` wins over a pending
 *   one of the same name (the docs page's own Content-Security-Policy);
 * - adding a pending header again replaces it, as `setHeader` would.
 * Pending headers are not visible to `getHeader`: nothing in this app reads
 * its own response headers back.
 */

const pending = Symbol('pending response headers');

/** Kept in `res.locals`, not on `res` (see request-id.ts). */
type Pending = ServerResponse & { locals: { [pending]?: string[] | undefined } };

/** Adds `name: value` to the headers `res` will start its answer with (replacing one of the same name). */
export function addResponseHeader(res: ServerResponse, name: string, value: string): void {
  const headers = (res as Pending).locals[pending];
  if (headers === undefined) {
    (res as Pending).locals[pending] = [name, value];
    return;
  }
  const at = indexOfName(headers, name);
  if (at === -1) headers.push(name, value);
  else headers[at + 1] = value;
}

/** `addResponseHeader` for each pair of a flat `[name, value, name, value...]` list. */
export function addResponseHeaders(res: ServerResponse, flat: readonly string[]): void {
  const headers = (res as Pending).locals[pending];
  if (headers === undefined) {
    (res as Pending).locals[pending] = flat.slice();
    return;
  }
  for (let i = 0; i < flat.length; i += 2) addResponseHeader(res, flat[i]!, flat[i + 1]!);
}

/**
 * Makes every response of `app` add its pending headers when it starts its
 * answer. Installed on `app.response`, the prototype of this app's
 * responses only.
 */
export function sendPendingHeadersWithWriteHead(app: Express): void {
  const inherited = app.response.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
  app.response.writeHead = function writeHead(this: Pending, statusCode: number, ...rest: unknown[]) {
    const headers = this.locals?.[pending];
    if (headers === undefined) return inherited.call(this, statusCode, ...rest);
    this.locals[pending] = undefined;
    const reason = typeof rest[0] === 'string' ? rest[0] : undefined;
    const given = reason === undefined ? rest[0] : rest[1];
    if (this.getHeaderNames().length === 0) {
      // Nothing set the usual way: Node gets one list and writes it as it is.
      const merged = isFlatList(given) ? mergeFlat(headers, given) : mergeAny(headers, given);
      return reason === undefined ? inherited.call(this, statusCode, merged) : inherited.call(this, statusCode, reason, merged);
    }
    // Some headers were set with `setHeader` (an error's Retry-After, the
    // docs page): add the pending ones the same way, unless already set.
    for (let i = 0; i < headers.length; i += 2) {
      if (!this.hasHeader(headers[i]!) && !givenHas(given, headers[i]!)) this.setHeader(headers[i]!, headers[i + 1]!);
    }
    return inherited.call(this, statusCode, ...rest);
  } as typeof app.response.writeHead;
}

function indexOfName(flat: readonly string[], name: string): number {
  const lower = name.toLowerCase();
  for (let i = 0; i < flat.length; i += 2) {
    const candidate = flat[i]!;
    if (candidate.length === lower.length && candidate.toLowerCase() === lower) return i;
  }
  return -1;
}

/** The headers given to `writeHead` (an object, a flat list, or a list of pairs) as name/value pairs. */
function givenPairs(given: unknown): Array<[string, unknown]> {
  if (given === undefined || given === null) return [];
  if (Array.isArray(given)) {
    if (given.length > 0 && Array.isArray(given[0])) return given as Array<[string, unknown]>;
    const pairs: Array<[string, unknown]> = [];
    for (let i = 0; i < given.length; i += 2) pairs.push([String(given[i]), given[i + 1]]);
    return pairs;
  }
  if (typeof given === 'object') return Object.entries(given);
  return [];
}

function givenHas(given: unknown, name: string): boolean {
  if (given === undefined || given === null) return false;
  return givenPairs(given).some(([candidate]) => candidate.toLowerCase() === name.toLowerCase());
}

/** A flat `[name, value, ...]` list of strings (what this app's own `res.json` passes). */
function isFlatList(given: unknown): given is string[] {
  return Array.isArray(given) && given.length % 2 === 0 && given.every((item) => typeof item === 'string');
}

/** The pending pairs whose names `given` does not set, then `given`'s pairs: without the copies `mergeAny` makes. */
function mergeFlat(headers: string[], given: string[]): string[] {
  if (given.length === 0) return headers;
  for (let i = 0; i < given.length; i += 2) {
    const at = indexOfName(headers, given[i]!);
    if (at !== -1) headers.splice(at, 2);
  }
  for (const item of given) headers.push(item);
  return headers;
}

/** The same for headers given as an object or a list of pairs. */
function mergeAny(headers: string[], given: unknown): unknown[] {
  const merged = withoutNames(headers, given);
  appendGiven(merged, given);
  return merged;
}

/** The pending pairs whose names `given` does not set. */
function withoutNames(headers: string[], given: unknown): unknown[] {
  const names = givenPairs(given).map(([name]) => name.toLowerCase());
  if (names.length === 0) return headers;
  const kept: unknown[] = [];
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]!;
    if (!names.some((other) => other.length === name.length && other === name.toLowerCase())) kept.push(name, headers[i + 1]);
  }
  return kept;
}

/** Appends `given` to a flat list, each value as Node would take it (a list of values stays a list). */
function appendGiven(flat: unknown[], given: unknown): void {
  for (const [name, value] of givenPairs(given)) {
    if (value !== undefined) flat.push(name, value);
  }
}
