import type { Middleware } from 'openapi-fetch';
import { NULL_BODY_STATUSES, withBody } from '../response';
import type { UnexpectedResponseError } from '../types';

const BODY_EXCERPT_LENGTH = 1000;

/** Does the body look like one of the API's error bodies? */
function isApiErrorBody(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
  const body = parsed as Record<string, unknown>;
  return (
    typeof body.statusCode === 'number' &&
    typeof body.errorCode === 'string' &&
    typeof body.errorMessage === 'string'
  );
}

/**
 * Makes `error` always an object of the API's error shape. Every error the
 * API itself sends is `{ statusCode, errorCode, errorMessage }`, but a proxy,
 * a load balancer or a wrong `baseUrl` can answer with HTML, plain text or
 * nothing, and openapi-fetch would then hand back a string or `undefined`
 * typed as the documented body. Such answers are rewritten into an
 * {@link UnexpectedResponseError} (`errorCode: 'UNEXPECTED_RESPONSE'`),
 * keeping the status and headers, so `error.errorCode` is always safe to read.
 * An answer to `HEAD` has no body by definition: it is left as it is. So has
 * a `304` (Operation A, to a caller who sent `If-None-Match` itself; a
 * browser's cache revalidates without the SDK and hands it the kept `200`):
 * marked empty, so that openapi-fetch gives neither `data` nor `error`.
 */
export function errorBodyMiddleware(): Middleware {
  return {
    async onResponse({ request, response }) {
      if (NULL_BODY_STATUSES.has(response.status)) return withEmptyBody(response);
      if (response.ok || request.method === 'HEAD') return undefined;
      const text = await response.clone().text();
      if (isApiErrorBody(text)) return undefined;
      const body: UnexpectedResponseError = {
        statusCode: response.status,
        errorCode: 'UNEXPECTED_RESPONSE',
        errorMessage: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}: not an error body of the loyalty API`,
        body: text.slice(0, BODY_EXCERPT_LENGTH),
      };
      const headers = new Headers(response.headers);
      headers.set('Content-Type', 'application/json');
      // The new body has its own length and is not compressed.
      headers.delete('Content-Length');
      headers.delete('Content-Encoding');
      return withBody(response, JSON.stringify(body), headers);
    },
  };
}

/** The same answer, saying `Content-Length: 0`: openapi-fetch then reads no body (it would make `error` an empty string). */
function withEmptyBody(response: Response): Response | undefined {
  if (response.headers.get('Content-Length') === '0') return undefined;
  const headers = new Headers(response.headers);
  headers.set('Content-Length', '0');
  return withBody(response, null, headers);
}
