import type { Middleware } from 'openapi-fetch';
import { newRequestId, REQUEST_ID_HEADER, rememberRequestId } from '../request-id';

/**
 * Gives every call an `X-Request-Id`, unless the caller set one. It runs in
 * openapi-fetch's `onRequest`, once per call and before the transport, so
 * every retry of a call carries the same id, and the server can tell a retry
 * from a new call in its logs.
 */
export function requestIdMiddleware(): Middleware {
  return {
    onRequest({ request }) {
      if (!request.headers.has(REQUEST_ID_HEADER)) request.headers.set(REQUEST_ID_HEADER, newRequestId());
      return undefined;
    },
    // Registered first, so its onResponse runs last (openapi-fetch runs them
    // in reverse) and sees the response the caller will get.
    onResponse({ request, response }) {
      const requestId = request.headers.get(REQUEST_ID_HEADER);
      if (requestId !== null) rememberRequestId(response, requestId);
      return undefined;
    },
  };
}
