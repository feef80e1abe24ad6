import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

/** Helmet's options for every response: JSON needs no content to load, so the policy forbids everything. */
const apiHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
} as const;

/**
 * The headers helmet sets on an API answer, as name/value pairs, set on
 * every response (every-answer.ts; `/docs` overrides the policy with
 * `docsContentSecurityPolicy`) and on the answers written to the socket
 * without the app (client-error.ts): taken from helmet once, by running its
 * middleware against a response that records what it is told. Helmet also
 * removes `X-Powered-By`, which this app never sets (`createApp` disables
 * it): anything else helmet would remove is a change this copy must learn
 * about, so it stops the start.
 */
export function apiSecurityHeaders(): Array<[string, string]> {
  const { set, removed } = helmetOutput(helmet(apiHelmetOptions));
  const unexpected = removed.filter((name) => name.toLowerCase() !== 'x-powered-by');
  if (unexpected.length > 0) throw new Error(`helmet removes headers this app does not expect: ${unexpected.join(', ')}`);
  return set;
}

/** What a helmet middleware does to a response that has no headers yet. */
function helmetOutput(middleware: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void): {
  set: Array<[string, string]>;
  removed: string[];
} {
  const set: Array<[string, string]> = [];
  const removed: string[] = [];
  const recorder = {
    setHeader(name: string, value: unknown) {
      if (typeof value !== 'string') throw new Error(`helmet set ${name} to a non-string value`);
      set.push([name, value]);
      return recorder;
    },
    removeHeader(name: string) {
      removed.push(name);
    },
  };
  let finished = false;
  middleware({ headers: {} } as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error instanceof Error ? error : new Error('helmet failed', { cause: error });
    finished = true;
  });
  // Helmet's middleware is synchronous; anything else would make this copy wrong.
  if (!finished) throw new Error('helmet did not finish synchronously');
  return { set, removed };
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
