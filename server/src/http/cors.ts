import cors, { type CorsOptions } from 'cors';
import type { RequestHandler } from 'express';
import type { ApiSpec } from './spec';

/**
 * The request headers a page sends through the SDK: the credentials, the
 * body's type, the request id, Start Session's identifier type, and the W3C
 * trace context (`tracePropagation`); and `If-None-Match`, for a page that
 * revalidates Operation A's list itself (a browser's cache adds it without
 * asking). `User-Agent` is not one: the SDK leaves it to the browser.
 */
export const corsAllowedHeaders = ['X-Api-Key', 'Authorization', 'Content-Type', 'X-Request-Id', 'X-Identifier-Type', 'traceparent', 'tracestate', 'If-None-Match'] as const;

/**
 * The response headers a page may read besides the CORS-safelisted ones: the
 * request id to quote to support, what the SDK's retries and a page's
 * back-off need from a `429`, and Operation A's `ETag`.
 */
export const corsExposedHeaders = ['X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'ETag'] as const;

/**
 * How long a browser may reuse a preflight's answer. Chromium caps it at two
 * hours and Firefox at a day; two hours also bounds how long a browser keeps
 * allowing what a changed policy no longer does.
 */
export const corsMaxAgeSeconds = 7200;

const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The methods of the spec's operations, upper-case, in a stable order. */
export function specMethods(spec: ApiSpec): string[] {
  const found = new Set<string>();
  for (const pathItem of Object.values(spec.paths ?? {})) {
    for (const method of httpMethods) if (pathItem && method in pathItem) found.add(method.toUpperCase());
  }
  return httpMethods.map((method) => method.toUpperCase()).filter((method) => found.has(method));
}

/** Where the allowed origins come from. */
export interface CorsOrigins {
  /** Exact origins the operator lists (`CORS_ORIGINS`). */
  listed: readonly string[];
  /** The origins of the live publishable keys, as the process knows them now (kept in memory, refreshed with the keys). */
  ofKeys: () => Promise<ReadonlySet<string>>;
}

/**
 * CORS for pages served from the allowed origins: those of the live
 * publishable keys, and those the operator lists (exact strings, as
 * `Origin` carries them).
 *
 * Mount it on the API's prefix, and only there (the operational routes are
 * for operators, not pages), before the API key and rate limit checks: a preflight carries no
 * credentials (browsers never send them on one), so the `OPTIONS` from an
 * allowed origin is answered here, `204`, and never reaches them. Every
 * other request from an allowed origin goes on with its CORS headers
 * already set, so the answers of the checks after it, errors included, are
 * readable by the page. Only a request that carries `Origin` asks for the
 * keys' origins, and they come from memory: a flood of preflights costs the
 * store nothing.
 *
 * A request from any other origin, or without one, gets no CORS header and
 * goes on as if CORS were off (an `OPTIONS` then meets the API key check).
 * The `cors` package alone would answer any `OPTIONS` with `204` and the
 * allowed methods and headers, whatever its origin; so it runs only for the
 * allowed ones. `Vary: Origin` goes on every response, allowed origin or
 * not, so that a cache never hands one origin's answer to another (the
 * answer to a key also depends on `Origin`: a secret key from a page is
 * refused).
 */
export function corsPolicy(origins: CorsOrigins, methods: readonly string[]): RequestHandler {
  const listed = new Set(origins.listed);
  const options: CorsOptions = {
    // The request's Origin, already known to be allowed, is reflected.
    origin: true,
    methods: [...methods],
    allowedHeaders: [...corsAllowedHeaders],
    exposedHeaders: [...corsExposedHeaders],
    maxAge: corsMaxAgeSeconds,
    optionsSuccessStatus: 204,
  };
  const forAllowedOrigin = cors(options) as RequestHandler;
  return (req, res, next) => {
    const origin = req.headers.origin;
    const notAllowed = () => {
      // Usually no Vary yet: then set, without parsing one (Express's `res.vary` would).
      if (res.hasHeader('Vary')) res.vary('Origin');
      else res.setHeader('Vary', 'Origin');
      next();
    };
    // A server's request (no Origin) goes on at once: the keys' origins are for pages.
    if (origin === undefined) return notAllowed();
    if (listed.has(origin)) return forAllowedOrigin(req, res, next);
    origins.ofKeys().then((ofKeys) => (ofKeys.has(origin) ? forAllowedOrigin(req, res, next) : notAllowed()), next);
  };
}
