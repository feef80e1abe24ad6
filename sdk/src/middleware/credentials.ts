import type { Middleware } from 'openapi-fetch';

/** Sends the client application's key, on every call of the client. */
export function apiKeyMiddleware(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('X-Api-Key', apiKey);
      return undefined;
    },
  };
}

/**
 * Sends a member session as `Authorization: Bearer <sessionToken>`. Sessions
 * belong to one member and expire, so this is per call (openapi-fetch's
 * per-request `middleware` option), not per client. Also useful with
 * `client.raw`: `raw.GET(path, { params, middleware: [sessionAuth(token)] })`.
 */
export function sessionAuth(sessionToken: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${sessionToken}`);
      return undefined;
    },
  };
}
