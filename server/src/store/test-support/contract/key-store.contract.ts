/**
 * `KeyStore` (store/port.ts): what the operator's key commands need:
 * clients, and the keys of each.
 */
import type { ApiKeyRecord } from '../../../domain/model';
import { deepCopy } from '../../copy';
import { apiKeyRecord, clientRecord } from '../records';
import { settings, tryToChange, type CurrentStore } from './contract-support';

export function describeKeyStoreContract(current: CurrentStore): void {
  describe('KeyStore', () => {
    it('finds a client by id, equal to what was stored, or null', async () => {
      const client = clientRecord('partner-app', settings);
      await current.store.upsertClients([client, clientRecord('other-app', settings)]);
      expect(await current.store.findClient('partner-app')).toStrictEqual(client);
      expect(await current.store.findClient('unknown-app')).toBeNull();
    });

    it('keeps its own records: changing the input or a result does not change the store', async () => {
      const client = clientRecord('partner-app', settings);
      const original = deepCopy(client);
      await current.store.upsertClients([client]);
      client.enabledBusinessUnits.push('GAS');
      const found = await current.store.findClient('partner-app');
      tryToChange(() => found?.enabledBusinessUnits.push('XYZ'), () => found && (found.clientId = 'other'));
      expect(await current.store.findClient('partner-app')).toStrictEqual(original);
    });

    it("lists a client's keys oldest first, and no other client's", async () => {
      const older = apiKeyRecord('key_b', 'partner-app', { createdAt: new Date('2030-01-01T00:00:00.000Z') });
      const newer = apiKeyRecord('key_a', 'partner-app', { createdAt: new Date('2030-01-02T00:00:00.000Z') });
      await current.store.insertApiKey(newer);
      await current.store.insertApiKey(older);
      await current.store.insertApiKey(apiKeyRecord('key_other', 'other-app'));
      expect(await current.store.listApiKeys('partner-app')).toStrictEqual([older, newer]);
      expect(await current.store.listApiKeys('nobody')).toStrictEqual([]);
    });

    it.each([
      ['keyId', (k: ApiKeyRecord) => apiKeyRecord(k.keyId, 'partner-app')],
      ['digest', (k: ApiKeyRecord) => apiKeyRecord('key_second', 'partner-app', { digest: k.digest })],
    ])('refuses a new key whose %s is taken', async (_what, clash) => {
      const key = apiKeyRecord('key_first', 'partner-app');
      await current.store.insertApiKey(key);
      await expect(current.store.insertApiKey(clash(key))).rejects.toThrow();
      expect(await current.store.listApiKeys('partner-app')).toStrictEqual([key]);
    });

    it("sets a key's expiry and revocation, only through its own client", async () => {
      const key = apiKeyRecord('key_partner1', 'partner-app');
      await current.store.insertApiKey(key);
      const expiresAt = new Date('2030-03-01T00:00:00.000Z');
      expect(await current.store.updateApiKey('other-app', key.keyId, { expiresAt })).toBeNull();
      expect(await current.store.updateApiKey('partner-app', 'key_unknown', { expiresAt })).toBeNull();
      const expiring = await current.store.updateApiKey('partner-app', key.keyId, { expiresAt });
      expect(expiring).toStrictEqual({ ...key, expiresAt });
      const revokedAt = new Date('2030-02-01T00:00:00.000Z');
      expect(await current.store.updateApiKey('partner-app', key.keyId, { revokedAt })).toStrictEqual({ ...key, expiresAt, revokedAt });
      expect((await current.store.findApiKey(key.digest))?.key).toStrictEqual({ ...key, expiresAt, revokedAt });
    });
  });
}
