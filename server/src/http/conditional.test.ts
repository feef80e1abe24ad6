import { freezeSnapshot } from '../domain/snapshot';
import { entityTag, noneMatchNames } from './conditional';

const body = [{ voucherDefinitionId: 'vd-1' }];
const tag = entityTag(body, ['client-a', 'LCL']);

describe('the entity tag of an answer', () => {
  it('is a quoted strong tag of 22 base64url characters', () => {
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
  });

  it.each<[string, object, string[]]>([
    ['another body', [], ['client-a', 'LCL']],
    ['another client', body, ['client-b', 'LCL']],
    ['another business unit', body, ['client-a', 'SDM']],
    ['the scope split otherwise', body, ['client-aL', 'CL']],
  ])('differs for %s', (_case, otherBody, scope) => {
    expect(entityTag(otherBody, scope)).not.toBe(tag);
  });

  it('is the same for an equal body and scope (another process)', () => {
    expect(entityTag([{ voucherDefinitionId: 'vd-1' }], ['client-a', 'LCL'])).toBe(tag);
  });

  it('stays the same for a kept snapshot past the tags it keeps (1,000 clients: then made again)', () => {
    const snapshot = freezeSnapshot([{ voucherDefinitionId: 'vd-1' }]);
    const first = entityTag(snapshot, ['client-0', 'LCL']);
    for (let i = 1; i <= 1_001; i++) entityTag(snapshot, [`client-${i}`, 'LCL']);
    expect(entityTag(snapshot, ['client-0', 'LCL'])).toBe(first);
    expect(entityTag([{ voucherDefinitionId: 'vd-1' }], ['client-0', 'LCL'])).toBe(first);
  });

  it('is the same for a kept snapshot each time', () => {
    const snapshot = freezeSnapshot([{ voucherDefinitionId: 'vd-1' }]);
    expect(entityTag(snapshot, ['client-a', 'LCL'])).toBe(tag);
    expect(entityTag(snapshot, ['client-a', 'LCL'])).toBe(tag);
  });
});

describe('If-None-Match', () => {
  it.each<[string, string | undefined, boolean]>([
    ['absent', undefined, false],
    ['the tag', tag, true],
    ['the tag, weak', `W/${tag}`, true],
    ['the tag among others', `"other", ${tag} ,W/"more"`, true],
    ['*', '*', true],
    ['* with spaces', ' * ', true],
    ['another tag', '"other"', false],
    ['the tag unquoted', tag.slice(1, -1), false],
    ['empty', '', false],
    ['the tag inside a longer one', `"x${tag.slice(1)}`, false],
  ])('%s: names the current tag: %s', (_case, header, names) => {
    expect(noneMatchNames(header, tag)).toBe(names);
  });
});
