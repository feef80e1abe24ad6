import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { apiKeyForm, base62Alphabet, composeGeneratedKey, generatedKeyPattern, isRefusedByForm } from './api-key-format';
import { apiKeyKinds, type ApiKeyKind } from './model';
import { newApiKey } from './secrets';

/** The characters a generated key may hold at `index`: a changed character from the same set keeps the key's shape. */
function alphabetAt(key: string, index: number): string {
  if (index < 4) return 'abcdefghijklmnopqrstuvwxyz_';
  if (index < 16) return '0123456789abcdef';
  if (index === 16) return '_';
  return base62Alphabet;
}

/** Every key that differs from `key` in exactly one character, drawn from the characters its place may hold. */
function oneCharacterChanges(key: string): string[] {
  return [...key].flatMap((original, index) =>
    [...alphabetAt(key, index)].filter((c) => c !== original).map((c) => `${key.slice(0, index)}${c}${key.slice(index + 1)}`),
  );
}

describe('generated API keys', () => {
  it.each(apiKeyKinds)('a new %s key says its kind and its id, and passes its own check', (kind) => {
    const { keyId, apiKey } = newApiKey(kind);
    expect(apiKey).toMatch(new RegExp(`^${generatedKeyPattern(kind)}$`));
    expect(apiKey.startsWith(kind === 'secret' ? 'lsk_' : 'lpk_')).toBe(true);
    expect(keyId).toMatch(/^key_[0-9a-f]{12}$/);
    expect(apiKey.slice(4, 16)).toBe(keyId.slice(4));
    expect(apiKeyForm(apiKey)).toEqual({ form: 'generated', kind, keyId });
  });

  it.each(apiKeyKinds)('a %s key does not match the pattern of the other kind', (kind) => {
    const other: ApiKeyKind = kind === 'secret' ? 'publishable' : 'secret';
    expect(newApiKey(kind).apiKey).not.toMatch(new RegExp(generatedKeyPattern(other)));
  });

  it('keys are one word: no "-", no "_" inside the secret, so the scanners\' \\b pattern finds them whole in text', () => {
    const { apiKey } = newApiKey('secret');
    const text = `LOYALTY_API_KEY=${apiKey}\n"apiKey": "${apiKey}",`;
    expect(text.match(new RegExp(`\\b${generatedKeyPattern('secret')}\\b`, 'g'))).toEqual([apiKey, apiKey]);
    expect(apiKey.slice(17)).toMatch(/^[0-9A-Za-z]{49}$/);
  });

  it('the checksum is CRC32 of all before it, in 6 base62 digits, most significant first', () => {
    // CRC32("lsk_000000000000_" + 43 × "0") = 0xb3ca38a8 = 3016374440 = 3·62^5 + 18·62^4 + 8·62^3 + 24·62^2 + 48·62 + 40
    // (Python's zlib.crc32 agrees), digits 3 I 8 O m e.
    const body = `lsk_000000000000_${'0'.repeat(43)}`;
    expect(composeGeneratedKey('secret', '000000000000', '0'.repeat(43))).toBe(`${body}3I8Ome`);
  });

  it.each(apiKeyKinds)('every change of one character of a new %s key, at every place, is refused by its form', (kind) => {
    const { apiKey } = newApiKey(kind);
    const changed = oneCharacterChanges(apiKey);
    // 4 prefix places (26 others each, but those that leave the prefixes are `other`), 12 hex, 49 base62.
    expect(changed.length).toBeGreaterThan(12 * 15 + 49 * 61);
    const accepted = changed.filter((key) => apiKeyForm(key).form === 'generated');
    expect(accepted).toEqual([]);
    // What still starts with a prefix is refused with no read; the rest is not ours (`lxk_…`) and is looked up.
    for (const key of changed) expect(apiKeyForm(key).form).toBe(key.startsWith('lsk_') || key.startsWith('lpk_') ? 'refused' : 'other');
  });

  it('refuses any change of one character in any generated key (property)', () => {
    const hex = fc.stringMatching(/^[0-9a-f]{12}$/);
    const secret = fc.stringMatching(/^[0-9A-Za-z]{43}$/);
    const kind = fc.constantFrom(...apiKeyKinds);
    fc.assert(
      fc.property(kind, hex, secret, fc.nat(), fc.nat(), (k, id, s, place, pick) => {
        const key = composeGeneratedKey(k, id, s);
        expect(apiKeyForm(key).form).toBe('generated');
        const index = place % key.length;
        const choices = [...alphabetAt(key, index)].filter((c) => c !== key[index]);
        if (choices.length === 0) return;
        const changed = `${key.slice(0, index)}${choices[pick % choices.length]}${key.slice(index + 1)}`;
        expect(apiKeyForm(changed).form).not.toBe('generated');
      }),
      { numRuns: 5000 },
    );
  });

  it.each<[string, string, 'refused' | 'other']>([
    ['a key made before this form', 'key_3f9a0c6d2e1b.Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5', 'other'],
    ['a fixture key', 'demo_secret_partner_app_0001', 'other'],
    ["another vendor's key", 'sk_live_51H8ZxYzAbCdEfGhIjKlMnOp', 'other'],
    ['the prefixes in upper case', 'LSK_000000000000_0000000000000000000000000000000000000000000000000', 'other'],
    ['a prefix alone', 'lsk_', 'refused'],
    ['a free-form value with the secret prefix', 'lsk_test_partner_0001', 'refused'],
    ['a free-form value with the publishable prefix', 'lpk_test_partner_web_0001', 'refused'],
    ['an id in upper-case hex', composeGeneratedKey('secret', '3F9A0C6D2E1B', '0'.repeat(43)), 'refused'],
    ['a secret one character short', composeGeneratedKey('secret', '3f9a0c6d2e1b', '0'.repeat(42)), 'refused'],
    ['a secret one character long', composeGeneratedKey('publishable', '3f9a0c6d2e1b', '0'.repeat(44)), 'refused'],
    ['a base64url character in the secret', composeGeneratedKey('secret', '3f9a0c6d2e1b', `${'0'.repeat(42)}-`), 'refused'],
    ['a whole key with a space after it', `${composeGeneratedKey('secret', '3f9a0c6d2e1b', '0'.repeat(43))} `, 'refused'],
  ])('%s is %s by its form', (_case, value, form) => {
    expect(apiKeyForm(value)).toEqual({ form });
    expect(isRefusedByForm(value)).toBe(form === 'refused');
  });

  it('draws the secret uniformly: every base62 digit comes up, none far more often than the others', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) for (const c of newApiKey('secret').apiKey.slice(17, 60)) counts.set(c, (counts.get(c) ?? 0) + 1);
    // 86,000 digits: 1,387 expected each; a digit favoured as a byte's plain remainder would be (5/4) over (1,664).
    expect(counts.size).toBe(62);
    expect(Math.max(...counts.values())).toBeLessThan(1550);
    expect(Math.min(...counts.values())).toBeGreaterThan(1230);
  });

  it.each(apiKeyKinds)("docs/operating.md gives the %s keys' pattern to secret scanners", (kind) => {
    const operating = readFileSync(path.resolve(__dirname, '../../../docs/operating.md'), 'utf8');
    expect(operating).toContain(`\\b${generatedKeyPattern(kind)}\\b`);
  });
});
