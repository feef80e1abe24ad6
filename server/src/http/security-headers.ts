import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * Helmet's headers on every response. JSON needs no content to load, so the
 * API's policy forbids everything; `/docs` overrides it with `docsContentSecurityPolicy`.
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
  });
}

/**
 * What the locally served swagger-ui page needs, and nothing from elsewhere:
 * its own scripts and styles, the inline styles React sets, data: images,
 * and fetching /openapi.json (plus "Try it out" calls) from this origin.
 * No `upgrade-insecure-requests`: it would break the page on plain-HTTP hosts.
 */
export function docsContentSecurityPolicy(): RequestHandler {
  return helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  });
}
