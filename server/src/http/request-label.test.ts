import type { Response } from 'express';
import { memberIdHash } from '../domain/secrets';
import type { MemberIdPolicy } from '../domain/member-ids';
import { applyMemberIdPolicy, maxHashedMemberIds, requestLabel } from './request-label';
import { tagOperation } from './routes';

/** A request of Operation A for `memberId`, labelled under `policy`. */
function labelFor(policy: MemberIdPolicy, memberId: string) {
  const res = { locals: {} } as Response;
  applyMemberIdPolicy(res, policy);
  tagOperation('listVoucherDefinitions')({ params: { correlation_id: memberId } } as never, res, () => undefined);
  return requestLabel({ url: `/client/users/${memberId}/voucher-definitions` }, res);
}

describe('a request label under LOG_MEMBER_IDS=hashed', () => {
  it(`names each member by its keyed hash, past ${maxHashedMemberIds} members kept as before`, () => {
    const key = Buffer.alloc(32, 7);
    const policy: MemberIdPolicy = { mode: 'hashed', key };
    const members = Array.from({ length: maxHashedMemberIds + 1 }, (_, i) => `m-${i}@example.com`);
    // The first member is pushed out by the last, then hashed again.
    for (const memberId of [...members, members[0]!]) expect(labelFor(policy, memberId).memberHash).toBe(memberIdHash(key, memberId));
  });

  it("never gives one policy's hash under another key", () => {
    const first: MemberIdPolicy = { mode: 'hashed', key: Buffer.alloc(32, 1) };
    const second: MemberIdPolicy = { mode: 'hashed', key: Buffer.alloc(32, 2) };
    expect(labelFor(first, 'm-alice').memberHash).toBe(memberIdHash(first.key, 'm-alice'));
    expect(labelFor(second, 'm-alice').memberHash).toBe(memberIdHash(second.key, 'm-alice'));
  });
});
