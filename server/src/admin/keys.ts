import { systemClock } from '../domain/clock';
import { createKeyService, KeyAdminError, type IssuedKey, type KeyAdminErrorCode, type KeyService } from '../features/keys/service';
import type { MongoConfig } from '../config';
import { withStore } from './database';
import { AdminError, exitCodes } from './exit-codes';
import { when, type Output } from './output';

/** `keys create|roll|revoke|list`: the key service on the database's store. */
export async function runKeys(mongo: MongoConfig, out: Output, action: (keys: KeyService) => Promise<(out: Output) => void>): Promise<void> {
  const print = await withStore(mongo, async (store) => {
    try {
      return await action(createKeyService({ store, clock: systemClock }));
    } catch (error) {
      if (error instanceof KeyAdminError) throw new AdminError(error.message, exitCodeOf[error.code]);
      throw error;
    }
  });
  print(out);
}

const exitCodeOf: Record<KeyAdminErrorCode, number> = {
  CLIENT_NOT_FOUND: exitCodes.notFound,
  KEY_NOT_FOUND: exitCodes.notFound,
  TOO_MANY_KEYS: exitCodes.failed,
  INVALID_ORIGINS: exitCodes.usage,
};

/** A key's origins on one line (none for a secret key). */
function originsText(origins: readonly string[]): string {
  return origins.length === 0 ? '-' : origins.join(' ');
}

/** A new key, shown once: the secret goes to stdout only, never to a log. */
export function printIssued(key: IssuedKey): (out: Output) => void {
  return (out) =>
    out.result(key, [
      `Client:      ${key.clientId}`,
      `Key id:      ${key.keyId}`,
      `Kind:        ${key.kind}`,
      ...(key.kind === 'publishable' ? [`Origins:     ${originsText(key.origins)}`] : []),
      `API key:     ${key.apiKey}`,
      `Created:     ${when(key.createdAt)}`,
      `Expires:     ${when(key.expiresAt)}`,
      key.kind === 'publishable'
        ? "The API key is shown this once. A publishable key goes into the partner's web pages on these origins; it starts no session."
        : "The API key is shown this once: give it to the partner now, for its servers only (never a web page). Only its digest is stored.",
    ]);
}

/** `create`'s key: publishable with `--publishable` and its `--origin`s, else secret. */
export interface CreateOptions {
  expiresInSeconds?: number;
  publishable?: boolean;
  origins?: string[];
}

export const keyCommands = {
  create: (clientId: string, options: CreateOptions) => async (keys: KeyService) => {
    const expiry = options.expiresInSeconds === undefined ? {} : { expiresInSeconds: options.expiresInSeconds };
    const kind = options.publishable ? { kind: 'publishable' as const, origins: options.origins ?? [] } : {};
    return printIssued(await keys.create(clientId, { ...expiry, ...kind }));
  },

  roll: (clientId: string, options: { graceSeconds?: number; keyId?: string }) => async (keys: KeyService) => printIssued(await keys.roll(clientId, options)),

  revoke: (clientId: string, keyId: string) => async (keys: KeyService) => {
    const revoked = await keys.revoke(clientId, keyId);
    return (out: Output) => out.result(revoked, [`Revoked ${revoked.keyId} at ${when(revoked.revokedAt)}; its sessions have ended.`]);
  },

  list: (clientId: string) => async (keys: KeyService) => {
    const listed = await keys.list(clientId);
    return (out: Output) =>
      out.result({ keys: listed }, [
        'key id              kind         created                   expires                   revoked                   origins',
        ...listed.map(
          (k) =>
            `${k.keyId.padEnd(19)} ${k.kind.padEnd(12)} ${when(k.createdAt).padEnd(25)} ${when(k.expiresAt).padEnd(25)} ${when(k.revokedAt).padEnd(25)} ${originsText(k.origins)}`,
        ),
      ]);
  },
};
