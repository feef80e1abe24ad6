import { maxCarriedMemberIds, memberIdsOf, memberIdScrubber, shownMemberId, withMemberIds, type MemberIdMode } from './member-ids';
import { memberIdHash } from './secrets';

const key = new Uint8Array(32).fill(7);
const hash = (id: string) => memberIdHash(key, id);

describe('shownMemberId', () => {
  it.each<[MemberIdMode, string]>([
    ['hashed', hash('m-alice')],
    ['off', '{correlation_id}'],
    ['plain', 'm-alice'],
  ])('LOG_MEMBER_IDS=%s shows m-alice as %s', (mode, shown) => {
    expect(shownMemberId({ mode, key }, 'm-alice')).toBe(shown);
  });
});

describe('memberIdScrubber', () => {
  const text = 'm-al lent to m-alice, m-alice to m-al; token rt-1 (m-bob unknown)';
  const token = new Map([['rt-1', '{reservation_token}']]);

  it.each<[MemberIdMode, string]>([
    ['hashed', `${hash('m-al')} lent to ${hash('m-alice')}, ${hash('m-alice')} to ${hash('m-al')}; token {reservation_token} (m-bob unknown)`],
    ['off', '{correlation_id} lent to {correlation_id}, {correlation_id} to {correlation_id}; token {reservation_token} (m-bob unknown)'],
    ['plain', text],
  ])('LOG_MEMBER_IDS=%s: every id it is given, the longest first, in one pass; only those', (mode, shown) => {
    expect(memberIdScrubber({ mode, key }, ['m-al', 'm-alice'], token)(text)).toBe(shown);
  });

  it('leaves a hash it put in alone, even when an id is a part of it', () => {
    const alice = hash('m-alice');
    const inside = alice.slice(3, 6);
    expect(memberIdScrubber({ mode: 'hashed', key }, ['m-alice', inside])(`m-alice ${inside}`)).toBe(`${alice} ${hash(inside)}`);
  });

  it("takes an id's characters literally, never as a pattern", () => {
    const odd = 'a.b*(c)[d]{e}|f?+^$\\g/h-i';
    expect(memberIdScrubber({ mode: 'off', key }, [odd, ''])(`x ${odd} axb`)).toBe('x {correlation_id} axb');
  });
});

describe('withMemberIds and memberIdsOf', () => {
  it('gives the ids an error, its causes (to a depth of 8) and its aggregated errors carry', () => {
    const deepest = withMemberIds(new Error('9'), ['m-too-deep']);
    let chain: Error = deepest;
    for (let depth = 8; depth >= 1; depth--) chain = new Error(String(depth), { cause: chain });
    withMemberIds(chain, ['m-1']);
    const aggregated = new AggregateError([withMemberIds(new Error('inner'), ['m-inner'])], 'several', { cause: chain });
    withMemberIds(aggregated, ['m-outer']);
    expect([...memberIdsOf(aggregated)].sort()).toEqual(['m-1', 'm-inner', 'm-outer']);
  });

  it('adds marks up, without the empty id, and follows a cycle of causes once', () => {
    const error = withMemberIds(withMemberIds(new Error('x'), ['m-a', '']), ['m-b', 'm-a']);
    (error as { cause?: unknown }).cause = error;
    expect([...memberIdsOf(error)]).toEqual(['m-a', 'm-b']);
  });

  it(`keeps at most ${maxCarriedMemberIds} ids per error, however often it is marked`, () => {
    const shared = new Error('thrown again and again');
    for (let round = 0; round < 3; round++) withMemberIds(shared, Array.from({ length: maxCarriedMemberIds }, (_, i) => `m-${round}-${i}`));
    const ids = memberIdsOf(shared);
    expect(ids.size).toBe(maxCarriedMemberIds);
    expect(ids.has('m-0-0')).toBe(true);
    expect(ids.has('m-1-0')).toBe(false);
  });

  it('marks no value that is not an object', () => {
    expect(withMemberIds('thrown text', ['m-a'])).toBe('thrown text');
    expect(memberIdsOf('thrown text').size).toBe(0);
  });
});
