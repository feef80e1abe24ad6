/**
 * `MemberStore` (store/port.ts): members by correlation id.
 */
import { memberRecord } from '../records';
import { tryToChange, type CurrentStore } from './contract-support';

export function describeMemberStoreContract(current: CurrentStore): void {
  describe('MemberStore', () => {
    it('finds a member, or null', async () => {
      const member = memberRecord('m-alice');
      await current.store.upsertMembers([member]);
      expect(await current.store.findMember('m-alice')).toStrictEqual(member);
      expect(await current.store.findMember('m-nobody')).toBeNull();
    });

    it('replaces a member with the same correlationId, household and wallet included', async () => {
      await current.store.upsertMembers([memberRecord('m-a', { householdId: 'hh-1' }), memberRecord('m-b', { householdId: 'hh-1' })]);
      await current.store.upsertMembers([memberRecord('m-a', { householdId: 'hh-2' })]);
      expect(await current.store.findMember('m-a')).toStrictEqual(memberRecord('m-a', { householdId: 'hh-2' }));
      expect(await current.store.findMember('m-b')).toStrictEqual(memberRecord('m-b', { householdId: 'hh-1' }));
    });

    it('keeps its own records: changing the input or a result does not change the store', async () => {
      await current.store.upsertMembers([memberRecord('m-alice')]);
      const found = await current.store.findMember('m-alice');
      tryToChange(() => found?.privileges.push('ADMIN'));
      expect(await current.store.findMember('m-alice')).toStrictEqual(memberRecord('m-alice'));
    });
  });
}
