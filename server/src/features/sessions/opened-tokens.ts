import { boundedCache } from '../../caching/bounded-cache';
import { deepFreeze } from '../../caching/read-cache';
import { openSealedSession, type SealedSession, type SealingKey } from '../../domain/session-tokens';

/**
 * Sealed tokens this process opened, at most this many (about 1 kB each:
 * the token and its session); past it the least recently used is opened
 * again when it comes back. As many as the sessions a process keeps of the
 * stored kind (composition.ts).
 */
export const maxOpenedTokens = 20_000;

/** Opens a sealed token with the key its kid names (see `openSealedSession`). */
export type OpenSealed = (key: SealingKey, token: string) => SealedSession | null;

/**
 * `openSealedSession`, done once per token: a member's page sends the same
 * token with every call, and opening it (base64url, AES-GCM, JSON) was the
 * largest cost of checking it (bench/README.md). A token is kept with the
 * key object that opened it and counts only with that same object, so a
 * key the process no longer holds (retired, or its kid reused) opens
 * nothing from here. Only tokens that opened are kept: a forged one cannot
 * push real ones out. What a use must still check (the session's expiry,
 * whether it was ended, its key) is checked on every use by the caller.
 */
export function openedTokens(options: { maxEntries?: number; open?: OpenSealed } = {}): OpenSealed {
  const { open = openSealedSession } = options;
  const opened = boundedCache<string, { key: SealingKey; session: SealedSession }>({ maxEntries: options.maxEntries ?? maxOpenedTokens });
  return (key, token) => {
    const known = opened.get(token);
    if (known?.key === key) return known.session;
    const session = open(key, token);
    if (session) opened.set(token, { key, session: deepFreeze(session) });
    return session;
  };
}
