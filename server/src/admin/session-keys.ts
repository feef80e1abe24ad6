import type { MongoConfig } from '../config';
import { systemClock } from '../domain/clock';
import { rolledSessionKey } from '../domain/session-keys';
import { withStore } from './database';
import type { Output } from './output';

/** A session key as the operator sees it: never its secret. */
interface SessionKeyListing {
  kid: string;
  createdAt: string;
  signsFrom: string;
  verifiesUntil: string | null;
}

/**
 * `loyalty-admin session-keys roll`: a new key that seals session tokens.
 * Stored first, it seals from 5 s later (every process reads the keys at
 * least every 2 s, so none meets a token it cannot open); the keys it
 * replaces still open tokens for the longest session lifetime after that
 * (a day), then they go. On a database whose sessions are still stored (a
 * fleet deployed over the release before sealed tokens), the first roll is
 * the switch to sealed tokens: run it once every process runs this release.
 */
export async function runSessionKeysRoll(mongo: MongoConfig, output: Output): Promise<void> {
  const now = systemClock();
  const { key, retireOthersAt } = rolledSessionKey(now);
  const keys = await withStore(mongo, async (store) => {
    await store.addSessionKey(key, retireOthersAt);
    return store.listSessionKeys(now);
  });
  const listed = keys.map(listing);
  output.result({ rolled: key.kid, signsFrom: key.signsFrom.toISOString(), keys: listed }, [
    `session key ${key.kid} seals new tokens from ${key.signsFrom.toISOString()}`,
    ...listed.filter((k) => k.kid !== key.kid).map((k) => `session key ${k.kid} still opens tokens until ${k.verifiesUntil ?? 'never'}`),
  ]);
}

/** `loyalty-admin session-keys list`: the keys that seal or still open session tokens (no secret). */
export async function runSessionKeysList(mongo: MongoConfig, output: Output): Promise<void> {
  const now = systemClock();
  const keys = (await withStore(mongo, (store) => store.listSessionKeys(now))).map(listing);
  output.result({ keys }, keys.length === 0 ? ['no session key: sessions are stored (run `session-keys roll` once every process runs this release)'] : keys.map(describe));
}

function listing(key: { kid: string; createdAt: Date; signsFrom: Date; verifiesUntil: Date | null }): SessionKeyListing {
  return { kid: key.kid, createdAt: key.createdAt.toISOString(), signsFrom: key.signsFrom.toISOString(), verifiesUntil: key.verifiesUntil?.toISOString() ?? null };
}

function describe(key: SessionKeyListing): string {
  return `${key.kid}  made ${key.createdAt}  seals from ${key.signsFrom}  opens tokens until ${key.verifiesUntil ?? 'its successor takes over, plus a day'}`;
}
