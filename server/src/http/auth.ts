import type { Request, RequestHandler, Response } from 'express';
import { isRefusedByForm } from '../domain/api-key-format';
import { AppError, forbidden, unauthorized, unauthorizedMessages } from '../domain/errors';
import { keyUseRefusal } from '../domain/key-use';
import type { AuthService, CredentialLookupGate } from '../domain/services';
import { lookupPastBudgetMs, type AuthFailureLimiter } from '../rate-limit/auth-failures';
import { clientAddressOf } from '../rate-limit/client-address';
import { refusedCredentialsPolicy, secondsBefore, setRateLimitHeaders, type LimitPolicy } from '../rate-limit/headers';
import { authenticatedClient, sessionLookup, setAuthenticatedClient, setMemberSession, setSessionLookup } from './locals';

/** What checks a request's credentials: the auth service, and the limit of refusals per client address (absent: none). */
export interface CredentialChecks {
  auth: AuthService;
  failures?: AuthFailureLimiter | null;
  /** Told of each request refused because its address is past its budget (metrics). */
  onLimited?: () => void;
}

/**
 * Every API request: the client owning `X-Api-Key` (a live key of it), or
 * 401; then whether that key may be used here (its kind, the request's
 * `Origin`: domain/key-use.ts), or 403, before anything counts or writes.
 * On the routes of Operations A and B (`withSession`), a bearer token's
 * session is read in the same store call as the client and kept for
 * `requireSession`, which decides right after. `startsSession`: Start
 * Session's route. Each refusal counts against the client's address; an
 * address past its budget has no unknown credential looked up (`lookupGate`).
 */
export function requireApiKey(checks: CredentialChecks, options: { withSession?: boolean; startsSession?: boolean } = {}): RequestHandler {
  const { auth } = checks;
  const gateOf = lookupGates(checks);
  return async (req, res, next) => {
    const apiKey = req.get('x-api-key');
    const gate = gateOf(req, res);
    // No session read for a key refused by its form (a generated key's, checksum wrong): it costs no store command.
    const credentials = options.withSession && apiKey && !isRefusedByForm(apiKey) ? bearerCredentialsOf(req.get('authorization')) : null;
    const lookup = credentials === null ? null : await auth.lookUpSession(bearerTokenOf(credentials), gate);
    const authenticated = await auth.authenticateClient(apiKey, lookup, gate);
    if (!authenticated) throw refused(checks, req, unauthorized(unauthorizedMessages.apiKey));
    // Known before the refusal below, so that the access log names the key a page misused.
    setAuthenticatedClient(res, authenticated.client, authenticated.key);
    const origin = req.get('origin');
    // The API's own origin matters only to a request from a page (with an Origin): worked out only then.
    const refusal = keyUseRefusal(authenticated.key, { startsSession: options.startsSession === true, origin, ownOrigin: origin === undefined ? '' : ownOriginOf(req) });
    if (refusal) throw refused(checks, req, forbidden(refusal));
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
export function requireSession(checks: CredentialChecks): RequestHandler<{ correlation_id: string }> {
  const { auth } = checks;
  const gateOf = lookupGates(checks);
  return async (req, res, next) => {
    const lookup = sessionLookup(res);
    // The token requireApiKey read with its session, or the header read here (not read twice).
    const token = lookup ? lookup.bearerToken : headerToken(checks, req);
    const session = await auth.authenticateSession(authenticatedClient(res), token, req.params.correlation_id, lookup, gateOf(req, res));
    if (!session) throw refused(checks, req, unauthorized(unauthorizedMessages.invalidSession));
    setMemberSession(res, session, lookup?.session === session ? lookup.member : undefined);
    next();
  };
}

/** The token of the request's bearer credentials (undefined: not one token); refused when it has none. */
function headerToken(checks: CredentialChecks, req: Request): string | undefined {
  const credentials = bearerCredentialsOf(req.get('authorization'));
  if (credentials === null) throw refused(checks, req, unauthorized(unauthorizedMessages.missingSession));
  return bearerTokenOf(credentials);
}

/** `error`, counted against the request's address as a refusal for credentials. */
function refused(checks: CredentialChecks, req: Request, error: AppError): AppError {
  checks.failures?.refused(clientAddressOf(req.ip));
  return error;
}

/**
 * The gate of each request's lookups of credentials the process does not
 * know: open while its address is within its budget of refusals, then for
 * one lookup a second; closed, a `429` naming the limit, with no store
 * command. None without a limit.
 */
function lookupGates(checks: CredentialChecks): (req: Request, res: Response) => CredentialLookupGate | undefined {
  const { failures } = checks;
  if (!failures) return () => undefined;
  const policy: LimitPolicy = refusedCredentialsPolicy(failures.perMinute);
  return (req, res) => () => {
    const verdict = failures.lookUp(clientAddressOf(req.ip));
    if (verdict.allowed) return;
    checks.onLimited?.();
    // The address may have a lookup again this soon.
    setRateLimitHeaders(res, [{ policy, remaining: 0, msBeforeReset: verdict.msBeforeReset }], secondsBefore(lookupPastBudgetMs));
    throw new AppError('TOO_MANY_REQUESTS', policy.refusal);
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
