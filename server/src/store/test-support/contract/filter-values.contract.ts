/**
 * Every port that reads by a value a caller passes on: the value is a key,
 * never a query operator (a careless caller might pass on an object from
 * a request body).
 */
import type { Store } from '../../port';
import { auditEntry, catalogueItemRecord, clientRecord, definitionRecord, memberRecord, redemptionRecord, sessionRecord, wallet } from '../records';
import { saveChangesCarrying, settings, type CurrentStore } from './contract-support';

/** A value a careless caller might pass on from a request body. */
const operatorObject = { $ne: '' } as unknown as string;

export function describeFilterValuesContract(current: CurrentStore): void {
  describe('filter values are keys, never query operators', () => {
    beforeEach(async () => {
      await current.store.upsertClients([clientRecord('partner-app', settings)]);
      await current.store.upsertMembers([memberRecord('m-a', { householdId: 'hh-1' })]);
      await current.store.insertSession(sessionRecord('hash-1'));
      await current.store.upsertVoucherDefinitions([definitionRecord('vd-1')]);
      await current.store.upsertCatalogueItems([catalogueItemRecord('0001')]);
      await current.store.upsertRedemptions([redemptionRecord('rd-1', 'm-a')]);
      await current.store.saveWallet(wallet('member:m-a', { 'm-a': 1 }), 0);
      await saveChangesCarrying(current, [auditEntry('rt-1', '2030-01-01T00:00:00.000Z', 5)]);
    });

    it.each([
      ['findApiKey', (s: Store) => s.findApiKey(operatorObject), null],
      ['findApiKeyById', (s: Store) => s.findApiKeyById(operatorObject), null],
      ['findClient', (s: Store) => s.findClient(operatorObject), null],
      ['listApiKeys', (s: Store) => s.listApiKeys(operatorObject), []],
      ['findMember', (s: Store) => s.findMember(operatorObject), null],
      ['findSession', (s: Store) => s.findSession(operatorObject), null],
      ['listPublishedVoucherDefinitions', (s: Store) => s.listPublishedVoucherDefinitions(operatorObject, 'CUX'), []],
      ['findCatalogueItems', (s: Store) => s.findCatalogueItems([operatorObject]), []],
      ['findRedemption', (s: Store) => s.findRedemption(operatorObject), null],
      ['loadWallet', (s: Store) => s.loadWallet(operatorObject), null],
      ['listAudit', (s: Store) => s.listAudit(operatorObject), []],
    ] as const)('%s matches nothing for an object', async (_name, call, expected) => {
      expect(await call(current.store)).toEqual(expected);
    });
  });
}
