import { windowOf } from '../windows';

/**
 * Waits, if need be, for `key`'s window to start again, so that at least
 * `roomMs` of it is left: a test (or script) that counts a key's requests
 * on the real clock then sees them all in one window. Resolves at once when
 * there is room; otherwise waits less than `roomMs`.
 */
export async function windowWithRoom(key: string, windowMs: number, roomMs: number): Promise<void> {
  const left = windowOf(key, Date.now(), windowMs).end - Date.now();
  if (left < roomMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
