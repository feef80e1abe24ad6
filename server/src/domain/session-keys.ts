import { maxSessionTtlSeconds } from './limits';
import type { SessionKeyRecord } from './model';
import { newSessionKeyId, newSessionKeySecret } from './session-tokens';

/*
 * How session keys rotate. A new key is handed to every process before it
 * seals anything: it seals from `signsFrom`, `rollLeadMs` after it is
 * stored, and every process reads the keys again at least every 2 s
 * (session-state.ts), so none meets a token sealed under a key it cannot
 * find. The keys it replaces still open tokens until every token they
 * sealed has expired: the longest session lifetime after the new key takes
 * over. Then they go.
 */

/**
 * From a key's store to its first token: the 2 s in which every process
 * learns of it, and 3 s for the processes' clocks to disagree (NTP keeps
 * them within milliseconds).
 */
export const rollLeadMs = 5000;

/** A new session key, sealing from `signsFrom`, with no end yet. */
export function newSessionKey(signsFrom: Date, createdAt: Date = signsFrom): SessionKeyRecord {
  return { kid: newSessionKeyId(), secret: newSessionKeySecret(), createdAt, signsFrom, verifiesUntil: null };
}

/**
 * The first key of a store that no process of an earlier release served (an
 * empty database, the embedded store): nobody can hold a token it cannot
 * open, so it seals at once, whatever a process's clock says.
 */
export function firstSessionKey(createdAt: Date): SessionKeyRecord {
  return newSessionKey(new Date(0), createdAt);
}

/** A roll at `now`: the new key, and until when the keys it replaces still open tokens. */
export function rolledSessionKey(now: Date): { key: SessionKeyRecord; retireOthersAt: Date } {
  const signsFrom = new Date(now.getTime() + rollLeadMs);
  return { key: newSessionKey(signsFrom, now), retireOthersAt: new Date(signsFrom.getTime() + maxSessionTtlSeconds * 1000) };
}

/** The key that seals at `now`: the newest whose `signsFrom` has come; null when none has. */
export function signingKeyAt<K extends Pick<SessionKeyRecord, 'signsFrom'>>(keys: readonly K[], now: Date): K | null {
  let signing: K | null = null;
  for (const key of keys) if (key.signsFrom <= now && (signing === null || key.signsFrom >= signing.signsFrom)) signing = key;
  return signing;
}
