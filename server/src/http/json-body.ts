import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../domain/errors';

/**
 * For the one operation that takes a body: a body that is not
 * `application/json` is 415; a JSON body larger than `limitBytes` is 413
 * (raised by the parser), malformed JSON is 400. `strict` accepts only
 * objects and arrays at the top level. `JSON.parse` keeps `__proto__` as a
 * plain own key, so nothing is polluted; the schema then rejects it as an
 * unknown field.
 *
 * The body every client sends (plain `application/json`, UTF-8, not
 * compressed, with a `Content-Length` within the limit) is read by
 * `readPlainJson`, which does what body-parser does for it at a fraction of
 * the cost (no content negotiation, charset tables or stream plumbing: it was
 * a fifth of Operation B's time). Every other request goes to body-parser,
 * which decides and words it exactly as before.
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  // `inflate: false`: a compressed body is 415, never a decompression fault.
  const parser = express.json({ limit: limitBytes, strict: true, type: 'application/json', inflate: false });
  const parse: RequestHandler = (req, res, next) => {
    if (isPlainJson(req, limitBytes)) readPlainJson(req, next);
    else parser(req, res, next);
  };
  return [requireJsonContentType, parse];
}

const plainContentTypes = new Set(['application/json', 'application/json; charset=utf-8']);

/** The usual JSON content types, as clients send them (any case): read and checked without type-is. */
export function isPlainJsonContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && plainContentTypes.has(contentType.toLowerCase());
}

/**
 * Runs before the parser, which would skip (not reject) another content
 * type. An empty body passes whatever its type: the schema reports it.
 */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
  const declaresBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
  // The usual header is recognised as it is; anything else is parsed by type-is.
  if (declaresBody && !isPlainJsonContentType(req.headers['content-type']) && !req.is('application/json')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
  next();
};

/** A request body-parser would read as UTF-8 JSON from exactly `Content-Length` bytes, within the limit. */
function isPlainJson(req: Request, limitBytes: number): boolean {
  const { headers } = req;
  if (headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined) return false;
  if (!isPlainJsonContentType(headers['content-type'])) return false;
  const length = headers['content-length'];
  return length !== undefined && /^\d{1,9}$/.test(length) && Number(length) <= limitBytes;
}

/** An error as body-parser raises it: the error middleware maps it by `type`. */
function bodyParserError(message: string, status: number, type: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: status < 500, type });
}

/**
 * Reads the body (Node's parser delivers exactly `Content-Length` bytes, or
 * the request is aborted), decodes it as UTF-8 without a byte order mark,
 * and parses it as body-parser's strict JSON parser does: an empty body is
 * `{}`; anything but an object or array at the top, or malformed JSON, is
 * `entity.parse.failed`.
 */
function readPlainJson(req: Request, next: (error?: unknown) => void): void {
  const chunks: Buffer[] = [];
  let done = false;
  const finish = (error: Error | null): void => {
    if (done) return;
    done = true;
    req.removeListener('data', onData);
    req.removeListener('end', onEnd);
    req.removeListener('error', onError);
    req.removeListener('close', onClose);
    if (error) {
      next(error);
      return;
    }
    let text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    try {
      req.body = parseStrictJson(text);
    } catch (parseError) {
      next(bodyParserError(parseError instanceof Error ? parseError.message : 'Invalid JSON', 400, 'entity.parse.failed'));
      return;
    }
    next();
  };
  const onData = (chunk: Buffer): void => void chunks.push(chunk);
  const onEnd = (): void => finish(null);
  const onError = (error: Error): void => finish(bodyParserError(error.message, 400, 'request.aborted'));
  const onClose = (): void => finish(bodyParserError('request aborted', 400, 'request.aborted'));
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.on('close', onClose);
}

const leadingWhitespace = /^[\x20\x09\x0a\x0d]*/;

function parseStrictJson(text: string): unknown {
  if (text.length === 0) return {};
  const first = text[0] === '{' || text[0] === '[' ? text[0] : text.charAt(leadingWhitespace.exec(text)![0].length);
  if (first !== '{' && first !== '[') throw new SyntaxError(`Unexpected token ${JSON.stringify(first)}, the body must be a JSON object or array`);
  return JSON.parse(text) as unknown;
}
