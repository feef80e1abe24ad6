import type { Middleware } from 'openapi-fetch';
import { SDK_PRODUCT } from '../version';

/**
 * `User-Agent: <app> loyalty-sdk-js/<version>`, so the API's operators can
 * tell SDK versions (and partner apps) apart. Nothing depends on it.
 */
export function userAgentHeader(appUserAgent: string | undefined): string {
  const app = appUserAgent?.trim();
  return app ? `${app} ${SDK_PRODUCT}` : SDK_PRODUCT;
}

export function userAgentMiddleware(userAgent: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('User-Agent', userAgent);
      return undefined;
    },
  };
}

/**
 * Browsers own `User-Agent`: Chrome drops the SDK's value, while Firefox
 * sends it and so needs the API's CORS policy to allow one more request
 * header, or every call fails its preflight. An informational header is not
 * worth that risk, so the SDK sets it only outside browsers (Node, edge
 * runtimes), where no preflight exists.
 */
export function runsInBrowser(): boolean {
  const scope = globalThis as { document?: unknown; WorkerGlobalScope?: unknown };
  return scope.document !== undefined || typeof scope.WorkerGlobalScope === 'function';
}
