import { systemClock } from '../domain/clock';
import { createKeyService, KeyAdminError, type IssuedKey, type KeyService } from '../features/keys/service';
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
      if (error instanceof KeyAdminError) throw new AdminError(error.message, error.code === 'TOO_MANY_KEYS' ? exitCodes.failed : exitCodes.notFound);
      throw error;
    }
  });
  print(out);
}

/** A new key, shown once: the secret goes to stdout only, never to a log. */
export function printIssued(key: IssuedKey): (out: Output) => void {
  return (out) =>
    out.result(key, [
      `Client:      ${key.clientId}`,
      `Key id:      ${key.keyId}`,
      `API key:     ${key.apiKey}`,
      `Created:     ${when(key.createdAt)}`,
      `Expires:     ${when(key.expiresAt)}`,
      'The API key is shown this once: give it to the partner now. Only its digest is stored.',
    ]);
}

export const keyCommands = {
  create: (clientId: string, expiresInSeconds: number | undefined) => async (keys: KeyService) =>
    printIssued(await keys.create(clientId, expiresInSeconds === undefined ? {} : { expiresInSeconds })),

  roll: (clientId: string, graceSeconds: number | undefined) => async (keys: KeyService) =>
    printIssued(await keys.roll(clientId, graceSeconds === undefined ? {} : { graceSeconds })),

  revoke: (clientId: string, keyId: string) => async (keys: KeyService) => {
    const revoked = await keys.revoke(clientId, keyId);
    return (out: Output) => out.result(revoked, [`Revoked ${revoked.keyId} at ${when(revoked.revokedAt)}; its sessions have ended.`]);
  },

  list: (clientId: string) => async (keys: KeyService) => {
    const listed = await keys.list(clientId);
    return (out: Output) =>
      out.result({ keys: listed }, [
        'key id              created                   expires                   revoked',
        ...listed.map((k) => `${k.keyId.padEnd(19)} ${when(k.createdAt).padEnd(25)} ${when(k.expiresAt).padEnd(25)} ${when(k.revokedAt)}`),
      ]);
  },
};
