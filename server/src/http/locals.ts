import type { Response } from 'express';
import type { ClientRecord, SessionRecord } from '../domain/model';

/**
 * Typed access to what the auth middlewares store on `res.locals`. A getter
 * that finds nothing means a route was mounted without its middleware: a
 * programming error, so it throws (and the client gets a plain 500).
 */
const clientKey = 'authenticatedClient';
const sessionKey = 'memberSession';

export function setAuthenticatedClient(res: Response, client: ClientRecord): void {
  res.locals[clientKey] = client;
}

export function authenticatedClient(res: Response): ClientRecord {
  const client: ClientRecord | undefined = res.locals[clientKey];
  if (!client) throw new Error('no authenticated client: requireApiKey is not mounted on this route');
  return client;
}

export function setMemberSession(res: Response, session: SessionRecord): void {
  res.locals[sessionKey] = session;
}

export function memberSession(res: Response): SessionRecord {
  const session: SessionRecord | undefined = res.locals[sessionKey];
  if (!session) throw new Error('no member session: requireSession is not mounted on this route');
  return session;
}
