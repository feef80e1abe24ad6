import { newSessionKeySecret, openSealedSession, sealingKey, sealSession, type SealingKey } from '../../domain/session-tokens';
import { openedTokens } from './opened-tokens';
import { sessionToSeal as session } from '../../domain/test-support/sessions';

const key = sealingKey('kidA', newSessionKeySecret());

/** `openedTokens` over the real opening, with the openings it did. */
function counted(maxEntries?: number) {
  const opened: string[] = [];
  const open = openedTokens({
    ...(maxEntries !== undefined && { maxEntries }),
    open: (with_: SealingKey, token: string) => {
      opened.push(token);
      return openSealedSession(with_, token);
    },
  });
  return { open, opened };
}

describe('opened sealed tokens', () => {
  it('open a token once, and give the same frozen session on every use', () => {
    const { open, opened } = counted();
    const sealed = sealSession(key, session);
    const first = open(key, sealed.token);
    expect(first).toEqual(openSealedSession(key, sealed.token));
    expect(open(key, sealed.token)).toBe(first);
    expect(opened).toEqual([sealed.token]);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it.each([
    ['another key object of the same kid and secret (the key set read again)', (secret: Buffer) => sealingKey('kidA', secret)],
    ['a key of the same kid and another secret (a kid reused)', () => sealingKey('kidA', newSessionKeySecret())],
  ])('open again with %s, never from what another key opened', (_case, keyAfter) => {
    const secret = newSessionKeySecret();
    const before = sealingKey('kidA', secret);
    const { open, opened } = counted();
    const sealed = sealSession(before, session);
    expect(open(before, sealed.token)).not.toBeNull();
    const after = keyAfter(secret);
    expect(open(after, sealed.token)).toEqual(openSealedSession(after, sealed.token));
    expect(opened).toHaveLength(2);
  });

  it('keep no token that does not open: each try opens again', () => {
    const { open, opened } = counted();
    const token = sealSession(key, session).token;
    const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BA' : 'AA'}`;
    expect(open(key, forged)).toBeNull();
    expect(open(key, forged)).toBeNull();
    expect(opened).toEqual([forged, forged]);
  });

  it('keep at most maxEntries tokens: past it, the least recently used is opened again', () => {
    const { open, opened } = counted(2);
    const [a, b, c] = [1, 2, 3].map(() => sealSession(key, session).token) as [string, string, string];
    for (const token of [a, b, a, c, a, b]) open(key, token);
    // a and b kept; c pushes b out (a was used after it); b comes back opened again.
    expect(opened).toEqual([a, b, c, b]);
  });
});
