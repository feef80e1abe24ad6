/**
 * `AuthStore` (store/port.ts): what authentication and Start Session
 * read: keys by digest or id with their client, the live publishable
 * keys, and sessions with their context.
 */
import type { ApiKeyRecord } from '../../../domain/model';
import { hashSecret } from '../../../domain/secrets';
import { deepCopy } from '../../copy';
import { apiKeyRecord, clientRecord, memberRecord, sessionRecord } from '../records';
import { settings, tryToChange, type CurrentStore } from './contract-support';

export function describeAuthStoreContract(current: CurrentStore): void {
  describe('AuthStore', () => {
    describe('API keys', () => {
      it('finds a key by its digest, with its client; an unknown digest finds nothing', async () => {
        const client = clientRecord('partner-app', settings);
        const key = apiKeyRecord('key_partner1', 'partner-app');
        await current.store.upsertClients([client]);
        await current.store.insertApiKey(key);
        expect(await current.store.findApiKey(key.digest)).toStrictEqual({ key, client });
        expect(await current.store.findApiKey(hashSecret('unknown'))).toBeNull();
      });

      it('finds a key by its public id, with its client; an unknown id finds nothing', async () => {
        const client = clientRecord('partner-app', settings);
        const key = apiKeyRecord('key_partner1', 'partner-app');
        await current.store.upsertClients([client]);
        await current.store.insertApiKey(key);
        expect(await current.store.findApiKeyById('key_partner1')).toStrictEqual({ key, client });
        expect(await current.store.findApiKeyById('key_unknown')).toBeNull();
      });

      it('finds a key whose client is gone, with a null client', async () => {
        const key = apiKeyRecord('key_orphan1', 'gone-app');
        await current.store.insertApiKey(key);
        expect(await current.store.findApiKey(key.digest)).toStrictEqual({ key, client: null });
      });

      it('lists the live publishable keys, oldest first, up to the limit: no secret, revoked or expired key', async () => {
        const at = (day: number) => new Date(`2030-01-0${day}T00:00:00.000Z`);
        const now = at(5);
        const publishable = (keyId: string, day: number, overrides: Partial<ApiKeyRecord> = {}) =>
          apiKeyRecord(keyId, 'partner-app', { kind: 'publishable', origins: [`https://${keyId}.example.com`], createdAt: at(day), ...overrides });
        const oldest = publishable('key_p1', 1);
        const expiringLater = publishable('key_p3', 3, { expiresAt: at(6), origins: ['https://a.example.com', 'http://127.0.0.1:5173'] });
        const newest = publishable('key_p4', 4, { clientId: 'other-app' });
        for (const key of [
          newest,
          apiKeyRecord('key_s1', 'partner-app', { createdAt: at(1) }),
          publishable('key_p2', 2, { revokedAt: at(4) }),
          publishable('key_p5', 2, { expiresAt: now }),
          expiringLater,
          oldest,
        ]) {
          await current.store.insertApiKey(key);
        }
        expect(await current.store.listLivePublishableKeys(now, 10)).toStrictEqual([oldest, expiringLater, newest]);
        expect(await current.store.listLivePublishableKeys(now, 2)).toStrictEqual([oldest, expiringLater]);
        expect(await current.store.listLivePublishableKeys(at(7), 10)).toStrictEqual([oldest, newest]);
      });
    });

    describe('sessions', () => {
      it('finds a session by token hash with its expiry as a Date', async () => {
        const session = sessionRecord('hash-1');
        await current.store.insertSession(session);
        const found = await current.store.findSession('hash-1');
        expect(found).toStrictEqual(session);
        expect(found?.expiresAt).toBeInstanceOf(Date);
        expect(await current.store.findSession('hash-2')).toBeNull();
      });

      it('keeps its own records: changing the input or a result does not change the store', async () => {
        const session = sessionRecord('hash-1');
        const expected = deepCopy(session);
        await current.store.insertSession(session);
        session.correlationId = 'm-mallory';
        const found = await current.store.findSession('hash-1');
        tryToChange(() => found && (found.clientId = 'other'));
        expect(await current.store.findSession('hash-1')).toStrictEqual(expected);
      });

      it('refuses a second session with the same token hash', async () => {
        await current.store.insertSession(sessionRecord('hash-1'));
        await expect(current.store.insertSession(sessionRecord('hash-1'))).rejects.toThrow();
      });

      it('finds a session with its client, member and the key that started it, in one call', async () => {
        const session = sessionRecord('hash-1');
        const client = clientRecord('partner-app', settings);
        const member = memberRecord('m-alice');
        const key = apiKeyRecord('key_partner1', 'partner-app');
        await current.store.insertSession(session);
        expect(await current.store.findSessionContext('hash-1')).toStrictEqual({ session, client: null, member: null, key: null });
        await current.store.upsertClients([client]);
        await current.store.upsertMembers([member]);
        await current.store.insertApiKey(key);
        expect(await current.store.findSessionContext('hash-1')).toStrictEqual({ session, client, member, key });
        expect(await current.store.findSessionContext('hash-2')).toBeNull();
      });
    });
  });
}
