import type { Clock } from '../../domain/clock';
import { isLiveKey, type ApiKeyRecord } from '../../domain/model';
import { hashSecret, newApiKey } from '../../domain/secrets';
import type { KeyStore } from '../../store/port';

/*
 * Partner API keys, as operators manage them (`loyalty-admin keys`). A
 * client may hold several keys; any live one authenticates it. Every change
 * is written to the store, which every server process reads again once its
 * credential cache lets the old read go (`fleetCredentialCaching`): it holds
 * fleet-wide within that, without a restart.
 */

/** A key as it is shown once, when made: the only time its secret leaves the server. */
export interface IssuedKey {
  clientId: string;
  keyId: string;
  apiKey: string;
  createdAt: Date;
  expiresAt: Date | null;
}

/** A key as listings show it: never its secret or digest. */
export interface KeyListing {
  keyId: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** Live keys one client may hold at once; making one more is refused (revoke or let one expire first). */
export const maxLiveKeysPerClient = 10;

/** `roll`'s default overlap: the other keys keep working this long. */
export const defaultGraceSeconds = 86_400;

export type KeyAdminErrorCode = 'CLIENT_NOT_FOUND' | 'KEY_NOT_FOUND' | 'TOO_MANY_KEYS';

export class KeyAdminError extends Error {
  constructor(
    readonly code: KeyAdminErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'KeyAdminError';
  }
}

export interface KeyService {
  /** A new key of the client, expiring after `expiresInSeconds` when given. */
  create(clientId: string, options?: { expiresInSeconds?: number }): Promise<IssuedKey>;
  /** A new key; every other live key of the client expires after the grace (or earlier, if it already did). */
  roll(clientId: string, options?: { graceSeconds?: number }): Promise<IssuedKey>;
  /** Ends the key now, and with it the sessions it started; revoking it again keeps the first time. */
  revoke(clientId: string, keyId: string): Promise<{ keyId: string; revokedAt: Date }>;
  list(clientId: string): Promise<KeyListing[]>;
}

export function createKeyService(deps: { store: KeyStore; clock: Clock }): KeyService {
  const { store, clock } = deps;

  async function requireClient(clientId: string): Promise<void> {
    if (!(await store.findClient(clientId))) throw new KeyAdminError('CLIENT_NOT_FOUND', `No client ${JSON.stringify(clientId)}`);
  }

  async function issue(clientId: string, now: Date, expiresAt: Date | null): Promise<IssuedKey> {
    const live = (await store.listApiKeys(clientId)).filter((key) => isLiveKey(key, now));
    if (live.length >= maxLiveKeysPerClient) {
      throw new KeyAdminError('TOO_MANY_KEYS', `Client ${JSON.stringify(clientId)} holds ${live.length} live keys, the most allowed: revoke one first`);
    }
    const { keyId, apiKey } = newApiKey();
    const record: ApiKeyRecord = { keyId, clientId, digest: hashSecret(apiKey), createdAt: now, expiresAt, revokedAt: null };
    await store.insertApiKey(record);
    return { clientId, keyId, apiKey, createdAt: now, expiresAt };
  }

  return {
    async create(clientId, options = {}) {
      await requireClient(clientId);
      const now = clock();
      const expiresAt = options.expiresInSeconds === undefined ? null : new Date(now.getTime() + options.expiresInSeconds * 1000);
      return issue(clientId, now, expiresAt);
    },

    async roll(clientId, options = {}) {
      await requireClient(clientId);
      const now = clock();
      const others = (await store.listApiKeys(clientId)).filter((key) => isLiveKey(key, now));
      const graceEnds = new Date(now.getTime() + (options.graceSeconds ?? defaultGraceSeconds) * 1000);
      // The new key first: the others must never all have stopped before it works.
      const issued = await issue(clientId, now, null);
      for (const key of others) {
        if (key.expiresAt === null || key.expiresAt > graceEnds) await store.updateApiKey(clientId, key.keyId, { expiresAt: graceEnds });
      }
      return issued;
    },

    async revoke(clientId, keyId) {
      await requireClient(clientId);
      const key = (await store.listApiKeys(clientId)).find((k) => k.keyId === keyId);
      if (!key) throw new KeyAdminError('KEY_NOT_FOUND', `Client ${JSON.stringify(clientId)} has no key ${JSON.stringify(keyId)}`);
      if (key.revokedAt) return { keyId, revokedAt: key.revokedAt };
      const revokedAt = clock();
      await store.updateApiKey(clientId, keyId, { revokedAt });
      return { keyId, revokedAt };
    },

    async list(clientId) {
      await requireClient(clientId);
      return (await store.listApiKeys(clientId)).map(({ keyId, createdAt, expiresAt, revokedAt }) => ({ keyId, createdAt, expiresAt, revokedAt }));
    },
  };
}
