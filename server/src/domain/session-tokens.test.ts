import { newSessionKeySecret, openSealedSession, sealedKidOf, sealingKey, sealSession } from './session-tokens';
import { sessionToSeal as session } from './test-support/sessions';

const key = sealingKey('kidA', newSessionKeySecret());
const otherKey = sealingKey('kidA', newSessionKeySecret());

/** Every decoding a curious holder might try: of the token, and of each of its dot-separated parts, from each of the first offsets. */
function decodings(token: string): string[] {
  const texts: string[] = [];
  for (const part of [token, ...token.split('.')]) {
    for (let offset = 0; offset < 4; offset++) {
      for (const encoding of ['base64url', 'base64'] as const) {
        const bytes = Buffer.from(part.slice(offset), encoding);
        texts.push(bytes.toString('latin1'), bytes.toString('utf8'), bytes.toString('utf16le'));
      }
    }
  }
  return texts;
}

describe('sealed session tokens', () => {
  it('open to the session sealed, with a random 128-bit id shown as a GUID', () => {
    const sealed = sealSession(key, session);
    expect(sealed.token).toMatch(/^st2\.kidA\.[A-Za-z0-9_-]+$/);
    expect(sealed.session.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(openSealedSession(key, sealed.token)).toEqual(sealed.session);
    expect(sealSession(key, session).session.sessionId).not.toBe(sealed.session.sessionId);
  });

  it("carry a member's own wallet implicitly, and a household's by its id", () => {
    const own = sealSession(key, { ...session, walletId: 'member:m-alice@example.com' });
    expect(openSealedSession(key, own.token)?.walletId).toBe('member:m-alice@example.com');
    expect(own.token.length).toBeLessThan(sealSession(key, session).token.length);
  });

  it('reveal no member id, client, key or wallet in any decoding of the token or its parts', () => {
    const { token } = sealSession(key, session);
    for (const text of decodings(token)) {
      for (const secret of ['m-alice', 'alice', 'partner-app', 'key_0123', 'hh-1']) expect(text).not.toContain(secret);
    }
  });

  it('are refused when any one character changes, whatever it becomes (every position, every character of the form)', () => {
    const { token } = sealSession(key, session);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    let tried = 0;
    for (let at = 0; at < token.length; at++) {
      for (const replacement of alphabet) {
        if (token[at] === replacement) continue;
        tried++;
        if (openSealedSession(key, token.slice(0, at) + replacement + token.slice(at + 1)) !== null) throw new Error(`opened with ${replacement} at ${at}`);
      }
    }
    expect(tried).toBe(token.length * (alphabet.length - 1));
  });

  it.each<[string, (token: string) => string]>([
    ['cut short', (token) => token.slice(0, -1)],
    ['lengthened', (token) => `${token}A`],
    ['with its kid changed', (token) => token.replace('kidA', 'kidB')],
    ['with a character base64url does not have', (token) => `${token.slice(0, -2)}*${token.slice(-1)}`],
    ['empty after its kid', () => 'st2.kidA.'],
    ['of an earlier release (random)', () => 'st_9kq3ZbJ0m4W2yQ8vT1xH5cN7rL6pD0sA'],
  ])('are refused %s', (_case, alter) => {
    expect(openSealedSession(key, alter(sealSession(key, session).token))).toBeNull();
  });

  it('are refused under another secret with the same kid', () => {
    expect(openSealedSession(otherKey, sealSession(key, session).token)).toBeNull();
  });

  it.each<[string, string | null]>([
    ['st2.kidA.AAAA', 'kidA'],
    ['st2..AAAA', null],
    ['st_random', null],
    [`st2.kidA.${'A'.repeat(1100)}`, null],
  ])('name their kid in clear: %s', (token, kid) => {
    expect(sealedKidOf(token)).toBe(kid);
  });
});
