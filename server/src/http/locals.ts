import type { Response } from 'express';
import type { ApiKeyRecord, ClientRecord, MemberRecord, MemberSession } from '../domain/model';
import type { SessionLookup } from '../domain/services';

/**
 * Typed access to what the auth middlewares store on `res.locals`. A getter
 * that finds nothing means a route was mounted without its middleware: a
 * programming error, so it throws (and the client gets a plain 500).
 */
const clientKey = 'authenticatedClient';
const keyIdKey = 'apiKeyId';
const keyKey = 'apiKey';
const sessionKey = 'memberSession';
const lookupKey = 'sessionLookup';
const memberKey = 'sessionMember';

export function setAuthenticatedClient(res: Response, client: ClientRecord, key: ApiKeyRecord): void {
  res.locals[clientKey] = client;
  res.locals[keyKey] = key;
  res.locals[keyIdKey] = key.keyId;
}

/** The API key the request authenticated with (its id, kind and origins; never its digest's use). */
export function authenticatedKey(res: Response): ApiKeyRecord {
  const key = res.locals[keyKey] as ApiKeyRecord | undefined;
  if (!key) throw new Error('no authenticated key: requireApiKey is not mounted on this route');
  return key;
}

/** The public id of the API key the request authenticated with; undefined before (the access log reads it). */
export function authenticatedKeyId(res: { locals: Record<string, unknown> }): string | undefined {
  const keyId = res.locals[keyIdKey];
  return typeof keyId === 'string' ? keyId : undefined;
}

export function authenticatedClient(res: Response): ClientRecord {
  const client = res.locals[clientKey] as ClientRecord | undefined;
  if (!client) throw new Error('no authenticated client: requireApiKey is not mounted on this route');
  return client;
}

/** The valid session, and its member when it was read with it (undefined: not read). */
export function setMemberSession(res: Response, session: MemberSession, member?: MemberRecord | null): void {
  res.locals[sessionKey] = session;
  if (member !== undefined) res.locals[memberKey] = member;
}

/** The path member as read with the session: undefined when it was not read (the service reads it). */
export function sessionMember(res: Response): MemberRecord | null | undefined {
  return res.locals[memberKey] as MemberRecord | null | undefined;
}

export function setSessionLookup(res: Response, lookup: SessionLookup): void {
  res.locals[lookupKey] = lookup;
}

export function sessionLookup(res: Response): SessionLookup | null {
  return (res.locals[lookupKey] as SessionLookup | undefined) ?? null;
}

export function memberSession(res: Response): MemberSession {
  const session = res.locals[sessionKey] as MemberSession | undefined;
  if (!session) throw new Error('no member session: requireSession is not mounted on this route');
  return session;
}
