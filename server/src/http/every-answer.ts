import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { MemberIdPolicy } from '../domain/member-ids';
import { accessLog, type AnsweredObserver } from './access-log';
import { assignRequestId } from './request-id';
import { apiSecurityHeaders } from './security-headers';

/**
 * What every response gets, before any route (matching one can already
 * fail: a malformed percent-encoding in a path parameter is a 400, and that
 * answer carries them too): helmet's security headers (taken from helmet
 * once, security-headers.ts), the request id, and the start of its access
 * log line. One middleware rather than three: every layer of the app costs
 * every request its dispatch.
 */
export function everyAnswer(logger: Logger, memberIds: MemberIdPolicy, onAnswered?: AnsweredObserver): RequestHandler {
  const securityHeaders = apiSecurityHeaders();
  const startLogLine = accessLog(logger, memberIds, onAnswered);
  return (req, res, next) => {
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    assignRequestId(req, res);
    startLogLine(res);
    next();
  };
}
