import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp, type HttpLogger } from 'pino-http';
import { stdSerializers, type Logger } from 'pino';

/**
 * One log line per request: id, method, url, status and time. Headers and
 * bodies are never serialised (they hold API keys and bearer tokens, and
 * serialising them costs throughput). `req.log` is a child bound to the
 * request id only. A failed request's line carries the error the error
 * middleware put on `res.err`, with its stack: at `error` level, or `warn`
 * for 503 (the store is down: an operational event, not a bug).
 */
export function accessLog(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    genReqId: (req) => req.id,
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'requestId' },
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage & { originalUrl?: string }) => ({
        id: req.id,
        method: req.method,
        url: req.originalUrl ?? req.url,
      }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
      err: stdSerializers.err,
    },
    customLogLevel: (_req, res, err) => {
      if (res.statusCode === 503) return 'warn';
      return err || res.statusCode >= 500 ? 'error' : 'info';
    },
  });
}
