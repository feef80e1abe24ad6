import { entityTag, noneMatchNames } from './conditional';

const bytes = Buffer.from('[{"voucherDefinitionId":"vd-1"}]', 'utf8');
const tag = entityTag(bytes, ['client-a', 'LCL']);

describe('the entity tag of an answer', () => {
  it('is a quoted strong tag of 22 base64url characters', () => {
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
  });

  it.each<[string, Buffer, string[]]>([
    ['other bytes', Buffer.from('[]', 'utf8'), ['client-a', 'LCL']],
    ['another client', bytes, ['client-b', 'LCL']],
    ['another business unit', bytes, ['client-a', 'SDM']],
    ['the scope split otherwise', bytes, ['client-aL', 'CL']],
  ])('differs for %s', (_case, otherBytes, scope) => {
    expect(entityTag(otherBytes, scope)).not.toBe(tag);
  });

  it('is the same for the same bytes and scope, in another Buffer (another process)', () => {
    expect(entityTag(Buffer.from(bytes), ['client-a', 'LCL'])).toBe(tag);
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
