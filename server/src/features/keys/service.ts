import type { Clock } from '../../domain/clock';
import { maxLivePublishableKeys } from '../../domain/limits';
import { isLiveKey, type ApiKeyKind, type ApiKeyRecord } from '../../domain/model';
import { keyOriginsProblem } from '../../domain/origins';
import { hashSecret, newApiKey } from '../../domain/secrets';
import type { KeyStore } from '../../store/port';

/*
 * Partner API keys, as operators manage them (`loyalty-admin keys`). A
 * client may hold several keys of both kinds (domain/model.ts, ApiKeyKind);
 * any live one authenticates it. Every change is written to the store, which
 * every server process reads again once its credential cache lets the old
 * read go (`fleetCredentialCaching`): it holds fleet-wide within that,
 * without a restart, and so do the origins the CORS preflights allow.
 */

/** A key as it is shown once, when made: the only time its secret leaves the server. */
export interface IssuedKey {
  clientId: string;
  keyId: string;
  apiKey: string;
  kind: ApiKeyKind;
  /** A publishable key's origins; none for a secret key. */
  origins: string[];
  createdAt: Date;
  expiresAt: Date | null;
}

/** A key as listings show it: never its secret or digest. */
export interface KeyListing {
  keyId: string;
  kind: ApiKeyKind;
  origins: string[];
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** What a new key is: secret (the default), or publishable for pages on `origins`. */
export type KeyKindOptions = { kind?: 'secret' } | { kind: 'publishable'; origins: string[] };

/** Live keys one client may hold at once, of either kind; making one more is refused (revoke or let one expire first). */
export const maxLiveKeysPerClient = 10;

/** `roll`'s default overlap: the other keys keep working this long. */
export const defaultGraceSeconds = 86_400;

export type KeyAdminErrorCode = 'CLIENT_NOT_FOUND' | 'KEY_NOT_FOUND' | 'TOO_MANY_KEYS' | 'INVALID_ORIGINS';

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
  /** A new key of the client, secret unless asked otherwise, expiring after `expiresInSeconds` when given. */
  create(clientId: string, options?: { expiresInSeconds?: number } & KeyKindOptions): Promise<IssuedKey>;
  /**
   * A new key, and the keys it replaces expire after the grace (or earlier,
   * if they already did). Without `keyId`: a secret key replacing every
   * other live secret key of the client (its publishable keys stay as they
   * are). With `keyId`: a key of that key's kind and origins, replacing it
   * alone.
   */
  roll(clientId: string, options?: { graceSeconds?: number; keyId?: string }): Promise<IssuedKey>;
  /** Ends the key now, and with it the sessions it started; revoking it again keeps the first time. */
  revoke(clientId: string, keyId: string): Promise<{ keyId: string; revokedAt: Date }>;
  list(clientId: string): Promise<KeyListing[]>;
}

export function createKeyService(deps: { store: KeyStore; clock: Clock }): KeyService {
  const { store, clock } = deps;

  async function requireClient(clientId: string): Promise<void> {
    if (!(await store.findClient(clientId))) throw new KeyAdminError('CLIENT_NOT_FOUND', `No client ${JSON.stringify(clientId)}`);
  }

  async function requireKey(clientId: string, keyId: string): Promise<ApiKeyRecord> {
    const key = (await store.listApiKeys(clientId)).find((k) => k.keyId === keyId);
    if (!key) throw new KeyAdminError('KEY_NOT_FOUND', `Client ${JSON.stringify(clientId)} has no key ${JSON.stringify(keyId)}`);
    return key;
  }

  /** Refuses a key past the bounds: the client's live keys, and the deployment's live publishable keys. */
  async function checkRoomFor(clientId: string, kind: KeyKindOptions, now: Date): Promise<void> {
    const live = (await store.listApiKeys(clientId)).filter((key) => isLiveKey(key, now));
    if (live.length >= maxLiveKeysPerClient) {
      throw new KeyAdminError('TOO_MANY_KEYS', `Client ${JSON.stringify(clientId)} holds ${live.length} live keys, the most allowed: revoke one first`);
    }
    if (kind.kind !== 'publishable') return;
    const problem = keyOriginsProblem(kind.origins);
    if (problem) throw new KeyAdminError('INVALID_ORIGINS', problem);
    const publishable = await store.listLivePublishableKeys(now, maxLivePublishableKeys);
    if (publishable.length >= maxLivePublishableKeys) {
      throw new KeyAdminError('TOO_MANY_KEYS', `The deployment holds ${publishable.length} live publishable keys, the most allowed: revoke one first`);
    }
  }

  async function issue(clientId: string, kind: KeyKindOptions, now: Date, expiresAt: Date | null): Promise<IssuedKey> {
    await checkRoomFor(clientId, kind, now);
    const keyKind = kind.kind ?? 'secret';
    const { keyId, apiKey } = newApiKey(keyKind);
    const origins = kind.kind === 'publishable' ? [...kind.origins] : [];
    const record: ApiKeyRecord = { keyId, clientId, kind: keyKind, origins, digest: hashSecret(apiKey), createdAt: now, expiresAt, revokedAt: null };
    await store.insertApiKey(record);
    return { clientId, keyId, apiKey, kind: record.kind, origins, createdAt: now, expiresAt };
  }

  /** The keys a roll replaces, and the kind (with its origins) of the key that replaces them. */
  async function rolled(clientId: string, keyId: string | undefined, now: Date): Promise<{ replaced: ApiKeyRecord[]; kind: KeyKindOptions }> {
    if (keyId === undefined) {
      const replaced = (await store.listApiKeys(clientId)).filter((key) => key.kind === 'secret' && isLiveKey(key, now));
      return { replaced, kind: { kind: 'secret' } };
    }
    const key = await requireKey(clientId, keyId);
    const kind: KeyKindOptions = key.kind === 'publishable' ? { kind: 'publishable', origins: key.origins } : { kind: 'secret' };
    return { replaced: isLiveKey(key, now) ? [key] : [], kind };
  }

  return {
    async create(clientId, options = {}) {
      await requireClient(clientId);
      const now = clock();
      const expiresAt = options.expiresInSeconds === undefined ? null : new Date(now.getTime() + options.expiresInSeconds * 1000);
      return issue(clientId, options, now, expiresAt);
    },

    async roll(clientId, options = {}) {
      await requireClient(clientId);
      const now = clock();
      const { replaced, kind } = await rolled(clientId, options.keyId, now);
      const graceEnds = new Date(now.getTime() + (options.graceSeconds ?? defaultGraceSeconds) * 1000);
      // The new key first: the others must never all have stopped before it works.
      const issued = await issue(clientId, kind, now, null);
      for (const key of replaced) {
        if (key.expiresAt === null || key.expiresAt > graceEnds) await store.updateApiKey(clientId, key.keyId, { expiresAt: graceEnds });
      }
      return issued;
    },

    async revoke(clientId, keyId) {
      await requireClient(clientId);
      const key = await requireKey(clientId, keyId);
      if (key.revokedAt) return { keyId, revokedAt: key.revokedAt };
      const revokedAt = clock();
      await store.updateApiKey(clientId, keyId, { revokedAt });
      return { keyId, revokedAt };
    },

    async list(clientId) {
      await requireClient(clientId);
      return (await store.listApiKeys(clientId)).map(({ keyId, kind, origins, createdAt, expiresAt, revokedAt }) => ({
        keyId,
        kind,
        origins: [...origins],
        createdAt,
        expiresAt,
        revokedAt,
      }));
    },
  };
}
