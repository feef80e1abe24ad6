/**
 * What Pact's verification proxy runs on each request before passing it to
 * the app.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { IdentifierType } from '../../server/src/domain/model';
import type { Services } from '../../server/src/domain/services';
import { listingTag } from '../../server/src/features/voucher-definitions/handler';
import { placeholderListingTag, placeholderSessionToken } from '../shared/contract';
import { apiKeyOf } from './fixtures/records';

/** Operations A and B, and End Session: the member is the first path segment after /client/users/. */
const sessionPath = /^\/client\/users\/([^/]+)\/(?:voucher-definitions|reservations\/[^/]+|sessions\/current)$/;

export interface SessionFilterDeps {
  /** Services on the store without injected faults, so a session starts even in "the store is unavailable". */
  services: Services;
  identifierType: () => IdentifierType;
  failures: string[];
}

/**
 * Swaps the consumer's placeholder bearer token for a real session, started
 * through the app's own session service for the client of `X-Api-Key` and
 * the member in the path, with the identifier type the provider state asks
 * for; by the client's secret key, as its server would, when the request
 * carries its page's publishable key. Any other token (the 401 interactions)
 * reaches the app unchanged.
 */
export function sessionFilter(deps: SessionFilterDeps): RequestHandler {
  return async (req, _res, next) => {
    const member = sessionPath.exec(req.path)?.[1];
    if (req.get('authorization') !== `Bearer ${placeholderSessionToken}` || member === undefined) {
      next();
      return;
    }
    try {
      const sent = await deps.services.auth.authenticateClient(req.get('x-api-key'));
      if (!sent) throw new Error('the placeholder session is sent with an API key no client has');
      const authenticated = sent.key.kind === 'secret' ? sent : await deps.services.auth.authenticateClient(apiKeyOf(sent.client.clientId));
      if (!authenticated) throw new Error(`client ${sent.client.clientId} has no secret key to start the page's session with`);
      const correlationId = decodeURIComponent(member);
      const session = await deps.services.sessions.startSession(authenticated.client, authenticated.key.keyId, correlationId, deps.identifierType());
      req.headers.authorization = `Bearer ${session.sessionToken}`;
      next();
    } catch (error) {
      deps.failures.push(`request filter, ${req.method} ${req.path}: ${(error as Error).message}`);
      next(error);
    }
  };
}

/** Operation A: the member is the first path segment after /client/users/. */
const listingPath = /^\/client\/users\/([^/]+)\/voucher-definitions$/;

/**
 * Swaps the consumer's placeholder `If-None-Match` for the current `ETag`
 * of the listing the request asks for (the client of `X-Api-Key`, the
 * business unit of the query), as the app's services list it now. Any other
 * value reaches the app unchanged.
 */
export function listingTagFilter(deps: Pick<SessionFilterDeps, 'services' | 'failures'>): RequestHandler {
  return async (req, _res, next) => {
    if (req.get('if-none-match') !== placeholderListingTag || !listingPath.test(req.path)) {
      next();
      return;
    }
    try {
      const authenticated = await deps.services.auth.authenticateClient(req.get('x-api-key'));
      if (!authenticated) throw new Error('the placeholder tag is sent with an API key no client has');
      const businessUnit = typeof req.query.businessUnit === 'string' ? req.query.businessUnit : undefined;
      const listing = await deps.services.voucherDefinitions.listVoucherDefinitions(authenticated.client, businessUnit);
      req.headers['if-none-match'] = listingTag(authenticated.client, listing);
      next();
    } catch (error) {
      deps.failures.push(`listing tag filter, ${req.method} ${req.path}: ${(error as Error).message}`);
      next(error);
    }
  };
}

/**
 * The proxy parses JSON bodies before the filter runs, and its parser is
 * strict: a body that is JSON but not an object or array (the "double-encoded
 * body" interaction) fails there and would never reach the app. This error
 * handler hands the body on as it was sent, so the app's own parser decides.
 */
export const forwardUnparsedBody: ErrorRequestHandler = (error: unknown, req, _res, next) => {
  const failure = error as { type?: unknown; body?: unknown } | null;
  if (failure?.type === 'entity.parse.failed' && typeof failure.body === 'string') {
    req.body = Buffer.from(failure.body, 'utf8');
    next();
    return;
  }
  next(error);
};
