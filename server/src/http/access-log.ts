import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'express';
import { stdSerializers, type Logger } from 'pino';
import { authenticatedKeyId } from './locals';
import { requestIdOf } from './request-id';
import type { MemberIdPolicy } from '../domain/member-ids';
import { applyMemberIdPolicy, errorTextScrubber, requestLabel } from './request-label';

type Level = 'info' | 'warn' | 'error';

/** Told of each request once it is answered (or its connection went away): metrics. */
export type AnsweredObserver = (res: Response, seconds: number) => void;

/**
 * Starts the log line of a request's response (`everyAnswer` calls it
 * first thing): one line per request, written when the response is done
 * (or the connection went away):
 *
 *   {"level":"info",...,"requestId":"…","req":{"id":"…","method":"GET",
 *    "operation":"listVoucherDefinitions","route":"/client/users/{correlation_id}/voucher-definitions",
 *    "memberHash":"…","keyId":"key_…"},"res":{"statusCode":200},"responseTime":3,"msg":"request completed"}
 *
 * The route, not the URL: the URL holds the member's id and the reservation
 * token. The member appears as `memberPolicy` says (request-label.ts).
 * Headers and bodies are never logged (they hold API keys and bearer tokens);
 * the public id of the API key the request authenticated with is
 * (`req.keyId`), so that an operator rolling a partner's keys sees which
 * ones are still in use.
 * A failed request's line carries the error the error middleware handed
 * over with `setLoggedError`, with its stack, at `error` level, or `warn` for 503 (the store
 * is down: an operational event, not a bug), and says "request errored".
 * Its text shows the request's member, and every member the error carries
 * (a household's co-members), as `memberPolicy` says; the token never
 * (request-label.ts `errorTextScrubber`).
 *
 * The lines pino-http would write with this configuration, without its
 * per-request cost (two child loggers, serialisers, three listeners and their
 * closures): the request's fields are read when the line is written, and one
 * `close` listener covers both a finished response and a dropped connection.
 */
export function accessLog(logger: Logger, memberPolicy: MemberIdPolicy, onAnswered?: AnsweredObserver): (res: Response) => void {
  // The line's `err` is serialised here, its ids scrubbed (`scrubbed`): the
  // logger's own `err` serialiser would take it for an error again and
  // name its type `Object`.
  const lines = logger.child({}, { serializers: { err: (value: unknown) => value } });
  // One pair of listeners for every response (no closures per request): what
  // they need travels on the response.
  function onDone(this: LoggedResponse, error?: Error): void {
    this.removeListener('close', onDone);
    this.removeListener('error', onDone);
    const elapsedMs = performance.now() - (this.locals[startedAt] ?? performance.now());
    onAnswered?.(this as unknown as Response, elapsedMs / 1000);
    writeLine(lines, this.req, this, elapsedMs, error);
  }
  return (res) => {
    const logged = res as unknown as LoggedResponse;
    // In `res.locals`, not on `res` (see request-id.ts).
    logged.locals[startedAt] = performance.now();
    applyMemberIdPolicy(logged, memberPolicy);
    logged.on('close', onDone);
    // Also keeps an 'error' on the response from crashing the process.
    logged.on('error', onDone);
  };
}

const startedAt = Symbol('access log start');
const loggedError = Symbol('access log error');

type Locals = { [startedAt]?: number; [loggedError]?: Error };
type LoggedResponse = ServerResponse<IncomingMessage & { originalUrl?: string }> & { locals: Locals };

/** The error the request's log line carries (with its stack); kept in `res.locals` like the rest. */
export function setLoggedError(res: { locals: Record<string, unknown> }, error: Error): void {
  (res.locals as Locals)[loggedError] = error;
}

function writeLine(logger: Logger, req: IncomingMessage & { originalUrl?: string }, res: LoggedResponse, elapsedMs: number, error: Error | undefined): void {
  const failure = error ?? res.locals[loggedError];
  const level = levelOf(res.statusCode, failure);
  if (!logger.isLevelEnabled(level)) return;
  const responseTime = Math.round(elapsedMs);
  const id = requestIdOf(res);
  const keyId = authenticatedKeyId(res);
  const request = { id, method: req.method, ...requestLabel(req, res as unknown as Response), ...(keyId !== undefined && { keyId }) };
  if (failure || res.statusCode >= 500) {
    const err = failure ?? new Error(`failed with status code ${res.statusCode}`);
    logger[level](
      { requestId: id, req: request, res: { statusCode: res.statusCode }, err: scrubbed(stdSerializers.err(err), errorTextScrubber(res as unknown as Response, err)), responseTime },
      'request errored',
    );
    return;
  }
  const message = !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted';
  logger[level]({ requestId: id, req: request, res: { statusCode: res.statusCode }, responseTime }, message);
}

/** The serialised error with the ids in every string in it (its message, stack, causes) shown as `scrub` says. */
function scrubbed(value: unknown, scrub: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  if (depth > 8 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => scrubbed(item, scrub, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, scrubbed(item, scrub, depth + 1)]));
}

function levelOf(statusCode: number, failure: Error | undefined): Level {
  if (statusCode === 503) return 'warn';
  return failure || statusCode >= 500 ? 'error' : 'info';
}
