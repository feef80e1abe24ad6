/**
 * `FixtureStore` (store/port.ts): the upserts a fixture's load writes
 * with. Each replaces the stored record with the same key; what the
 * other ports read back after an upsert is in their own suites, and the
 * loader's own behaviour on both stores in features/load/load-fixture.test.ts.
 */
import { hashSecret } from '../../../domain/secrets';
import { apiKeyRecord } from '../records';
import type { CurrentStore } from './contract-support';

export function describeFixtureStoreContract(current: CurrentStore): void {
  describe('FixtureStore', () => {
    it('replaces a key with the same keyId on upsert; its old digest no longer finds it', async () => {
      const key = apiKeyRecord('key_fx1', 'partner-app');
      await current.store.upsertApiKeys([key]);
      const replaced = apiKeyRecord('key_fx1', 'partner-app', { digest: hashSecret('rotated') });
      await current.store.upsertApiKeys([replaced]);
      expect(await current.store.findApiKey(key.digest)).toBeNull();
      expect((await current.store.findApiKey(replaced.digest))?.key).toStrictEqual(replaced);
    });

    it('refuses on upsert a digest that already belongs to another key', async () => {
      await current.store.upsertApiKeys([apiKeyRecord('key_a', 'a-app', { digest: hashSecret('shared') })]);
      await expect(current.store.upsertApiKeys([apiKeyRecord('key_b', 'b-app', { digest: hashSecret('shared') })])).rejects.toThrow();
    });

    it('accepts empty upserts', async () => {
      await current.store.upsertClients([]);
      await current.store.upsertMembers([]);
      await current.store.upsertCatalogueItems([]);
      await current.store.upsertRedemptions([]);
      await current.store.upsertVoucherDefinitions([]);
      expect(await current.store.findMember('m-a')).toBeNull();
    });
  });
}
