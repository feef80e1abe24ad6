import type { Request, RequestHandler } from 'express';
import { isRefusedByForm } from '../domain/api-key-format';
import { forbidden, unauthorized, unauthorizedMessages } from '../domain/errors';
import { keyUseRefusal } from '../domain/key-use';
import type { AuthService } from '../domain/services';
import { authenticatedClient, sessionLookup, setAuthenticatedClient, setMemberSession, setSessionLookup } from './locals';

/**
 * Every API request: the client owning `X-Api-Key` (a live key of it), or
 * 401; then whether that key may be used here (its kind, the request's
 * `Origin`: domain/key-use.ts), or 403, before anything counts or writes.
 * On the routes of Operations A and B (`withSession`), a bearer token's
 * session is read in the same store call as the client and kept for
 * `requireSession`, which still decides after the checks between them (rate
 * limit, body). `startsSession`: Start Session's route.
 */
export function requireApiKey(auth: AuthService, options: { withSession?: boolean; startsSession?: boolean } = {}): RequestHandler {
  return async (req, res, next) => {
    const apiKey = req.get('x-api-key');
    // No session read for a key refused by its form (a generated key's, checksum wrong): it costs no store command.
    const credentials = options.withSession && apiKey && !isRefusedByForm(apiKey) ? bearerCredentialsOf(req.get('authorization')) : null;
    const lookup = credentials === null ? null : await auth.lookUpSession(bearerTokenOf(credentials));
    const authenticated = await auth.authenticateClient(apiKey, lookup);
    if (!authenticated) throw unauthorized(unauthorizedMessages.apiKey);
    // Known before the refusal below, so that the access log names the key a page misused.
    setAuthenticatedClient(res, authenticated.client, authenticated.key.keyId);
    const refusal = keyUseRefusal(authenticated.key, { startsSession: options.startsSession === true, origin: req.get('origin'), ownOrigin: ownOriginOf(req) });
    if (refusal) throw forbidden(refusal);
    if (lookup) setSessionLookup(res, lookup);
    next();
  };
}

/**
 * Operations A and B: the member session of `Authorization: Bearer <token>`,
 * valid for this client and the path's member, or 401. No header, another
 * scheme or no token at all is a missing session; anything else that fails
 * is an invalid one, whatever the reason (the answer never says whose a
 * token is). Mount after `requireApiKey`, on a route with `:correlation_id`.
 */
export function requireSession(auth: AuthService): RequestHandler<{ correlation_id: string }> {
  return async (req, res, next) => {
    const credentials = bearerCredentialsOf(req.get('authorization'));
    if (credentials === null) throw unauthorized(unauthorizedMessages.missingSession);
    const lookup = sessionLookup(res);
    const session = await auth.authenticateSession(authenticatedClient(res), bearerTokenOf(credentials), req.params.correlation_id, lookup);
    if (!session) throw unauthorized(unauthorizedMessages.invalidSession);
    setMemberSession(res, session, lookup?.session === session ? lookup.member : undefined);
    next();
  };
}

/**
 * What follows the `Bearer` scheme (case-insensitive, RFC 9110 11.1), or null
 * when there is no header, another scheme, or nothing after it.
 */
export function bearerCredentialsOf(authorization: string | undefined): string | null {
  const match = /^Bearer(?: +(.*))?$/i.exec(authorization ?? '');
  const credentials = match?.[1]?.trim();
  return credentials ? credentials : null;
}

/** The token of bearer credentials: one token68 word (RFC 6750), else undefined (no session has it). */
export function bearerTokenOf(credentials: string): string | undefined {
  return /^\S+$/.test(credentials) ? credentials : undefined;
}

/** The origin a page served by this API (its `/docs`) sends: the scheme and host the request reached, behind a trusted proxy as it forwarded them. */
function ownOriginOf(req: Request): string {
  return `${req.protocol}://${req.host ?? ''}`;
}
