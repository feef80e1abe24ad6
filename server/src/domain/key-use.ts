import { forbiddenMessages, type ForbiddenMessage } from './errors';
import type { ApiKeyRecord } from './model';

/**
 * What a request does with its key, as far as the key's kind decides. A
 * browser sends `Origin` on every cross-origin request (and on a same-origin
 * one that is not a GET or HEAD); servers, scripts and `curl` send none.
 * Outside a browser anyone can send any `Origin`: a publishable key's
 * origins keep other sites' pages from using it, they are no secret. What
 * keeps a stranger from acting for a member is that no key a page holds
 * starts a session.
 */
export interface KeyUse {
  /** Start Session: only a secret key starts one. */
  startsSession: boolean;
  /** The request's `Origin` header, when it has one. */
  origin: string | undefined;
  /** The API's own origin, as this request reached it: its `/docs` page sends requests from there. */
  ownOrigin: string;
}

/**
 * Why `key` may not be used for this request (the 403's message), or null
 * when it may. A publishable key never starts a session, and works only
 * from a page on one of its origins; a secret key works only where no page
 * is (no `Origin`, or the API's own).
 */
export function keyUseRefusal(key: Pick<ApiKeyRecord, 'kind' | 'origins'>, use: KeyUse): ForbiddenMessage | null {
  if (key.kind === 'publishable') {
    if (use.startsSession) return forbiddenMessages.publishableStartsSession;
    return use.origin !== undefined && key.origins.includes(use.origin) ? null : forbiddenMessages.publishableOrigin;
  }
  return use.origin === undefined || use.origin === use.ownOrigin ? null : forbiddenMessages.secretFromPage;
}
