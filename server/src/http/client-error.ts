import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../domain/errors';
import { apiSecurityHeaders } from './security-headers';

/** The security headers these raw answers carry: the ones that matter for a JSON error. */
const rawAnswerHeaders = new Set(['content-security-policy', 'x-content-type-options', 'x-frame-options', 'referrer-policy']);

/**
 * Requests Node's HTTP parser refuses (headers or a URL over its 16 KiB
 * limit, a malformed request line) never reach the app, and Node would
 * answer them with an empty body. They get the documented error body and
 * the security headers too.
 */
export function answerParserErrors(server: Server): void {
  const securityLines = apiSecurityHeaders()
    .filter(([name]) => rawAnswerHeaders.has(name.toLowerCase()))
    .map(([name, value]) => `${name}: ${value}`);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Nothing can be answered on a connection that is gone or mid-response.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const appError = tooLarge
      ? new AppError('REQUEST_HEADERS_TOO_LARGE', 'Request headers are too large')
      : new AppError('INVALID_REQUEST', 'Malformed HTTP request');
    const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
    socket.end(rawResponse(appError, reason, securityLines, isHeadRequest(error)));
  });
}

/**
 * Whether the refused bytes are a HEAD request, whose answer has no body
 * (a client would read one as garbage). Node hands over the chunk it was
 * parsing: the whole request when it came in one piece, as small requests
 * do. A request whose line was in an earlier chunk is taken as not HEAD.
 */
function isHeadRequest(error: NodeJS.ErrnoException & { rawPacket?: unknown }): boolean {
  const packet = error.rawPacket;
  return Buffer.isBuffer(packet) && packet.subarray(0, 5).toString('latin1') === 'HEAD ';
}

function rawResponse(error: AppError, reason: string, securityLines: string[], headOnly: boolean): string {
  const body = JSON.stringify(error.toBody());
  return [
    `HTTP/1.1 ${error.status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...securityLines,
    'Connection: close',
    '',
    headOnly ? '' : body,
  ].join('\r\n');
}
