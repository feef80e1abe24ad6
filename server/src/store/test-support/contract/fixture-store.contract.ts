/**
 * `FixtureStore` (store/port.ts): the upserts a fixture's load writes
 * with. Each replaces the stored record with the same key; what the
 * other ports read back after an upsert is in their own suites, and the
 * loader's own behaviour on both stores in features/load/load-fixture.test.ts.
 */
import { hashSecret } from '../../../domain/secrets';
import type { Store } from '../../port';
import { apiKeyRecord } from '../records';
import type { CurrentStore } from './contract-support';

export function describeFixtureStoreContract(current: CurrentStore): void {
  describe('FixtureStore', () => {
    let store: Store;

    beforeEach(() => {
      ({ store } = current());
    });

    it('replaces a key with the same keyId on upsert; its old digest no longer finds it', async () => {
      const key = apiKeyRecord('key_fx1', 'partner-app');
      await store.upsertApiKeys([key]);
      const replaced = apiKeyRecord('key_fx1', 'partner-app', { digest: hashSecret('rotated') });
      await store.upsertApiKeys([replaced]);
      expect(await store.findApiKey(key.digest)).toBeNull();
      expect((await store.findApiKey(replaced.digest))?.key).toStrictEqual(replaced);
    });

    it('refuses on upsert a digest that already belongs to another key', async () => {
      await store.upsertApiKeys([apiKeyRecord('key_a', 'a-app', { digest: hashSecret('shared') })]);
      await expect(store.upsertApiKeys([apiKeyRecord('key_b', 'b-app', { digest: hashSecret('shared') })])).rejects.toThrow();
    });

    it('accepts empty upserts', async () => {
      await store.upsertClients([]);
      await store.upsertMembers([]);
      await store.upsertCatalogueItems([]);
      await store.upsertRedemptions([]);
      await store.upsertVoucherDefinitions([]);
      expect(await store.findMember('m-a')).toBeNull();
    });
  });
}
