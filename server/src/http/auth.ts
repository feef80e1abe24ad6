import type { RequestHandler } from 'express';
import { unauthorized } from '../domain/errors';
import type { AuthService } from '../domain/services';
import { authenticatedClient, setAuthenticatedClient, setMemberSession } from './locals';

/** Every API request: the client owning `X-Api-Key`, or 401. */
export function requireApiKey(auth: AuthService): RequestHandler {
  return async (req, res, next) => {
    const client = await auth.authenticateClient(req.get('x-api-key'));
    if (!client) throw unauthorized('Missing or unknown API key');
    setAuthenticatedClient(res, client);
    next();
  };
}

/**
 * Operations A and B: the member session of `Authorization: Bearer <token>`,
 * valid for this client and the path's member, or 401. Mount after
 * `requireApiKey`, on a route with `:correlation_id`.
 */
export function requireSession(auth: AuthService): RequestHandler<{ correlation_id: string }> {
  return async (req, res, next) => {
    const bearerToken = bearerTokenOf(req.get('authorization'));
    const session = await auth.authenticateSession(authenticatedClient(res), bearerToken, req.params.correlation_id);
    if (!session) throw unauthorized();
    setMemberSession(res, session);
    next();
  };
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 7235). */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return match?.[1];
}
