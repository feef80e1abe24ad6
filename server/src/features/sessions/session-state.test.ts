import type { EndedSessionRecord, SessionKeyRecord } from '../../domain/model';
import { newSessionKey } from '../../domain/session-keys';
import { SessionState } from './session-state';

const start = new Date('2030-01-01T00:00:00.000Z');

/** A store whose answers and reads the test controls, on clocks the test moves. */
function setUp() {
  const clock = { wall: start, mono: 1_000 };
  const keys: SessionKeyRecord[] = [newSessionKey(start)];
  const ended: EndedSessionRecord[] = [];
  /** Each read of the keys with the first page of ended sessions; `pages`: each further page asked. */
  const reads: Array<{ keys: number; ended: Date }> = [];
  const pages: Date[] = [];
  let hold: Promise<void> | null = null;
  const listEnded = async (since: Date, now: Date, limit: number) =>
    ended
      .filter((e) => e.endedAt >= since && e.expiresAt > now)
      .sort((a, b) => a.endedAt.getTime() - b.endedAt.getTime() || (a.sessionId < b.sessionId ? -1 : 1))
      .slice(0, limit);
  const store = {
    readSessionState: async (now: Date, since: Date, limit: number) => {
      reads.push({ keys: keys.length, ended: now });
      if (hold) await hold;
      return { keys: keys.filter((k) => k.verifiesUntil === null || k.verifiesUntil > now), ended: await listEnded(since, now, limit) };
    },
    listEndedSessions: async (since: Date, now: Date, limit: number) => {
      pages.push(since);
      return listEnded(since, now, limit);
    },
  };
  const state = new SessionState({ store, clock: () => clock.wall, now: () => clock.mono });
  return {
    state,
    keys,
    ended,
    reads,
    pages,
    clock,
    advance: (ms: number) => {
      clock.mono += ms;
      clock.wall = new Date(clock.wall.getTime() + ms);
    },
    holdReads: () => {
      let release = () => undefined as void;
      hold = new Promise<void>((resolve) => (release = resolve));
      return () => {
        hold = null;
        release();
      };
    },
  };
}

const endedSession = (sessionId: string, endedAt: Date, expiresAt: Date): EndedSessionRecord => ({ sessionId, endedAt, expiresAt });

describe('SessionState', () => {
  it('waits for its first read, then answers from memory, reading again at most once per 1.5 s for every caller', async () => {
    const { state, reads, advance } = setUp();
    expect(state.ready()).toBeInstanceOf(Promise);
    await state.ready();
    for (let i = 0; i < 20; i++) expect(state.ready()).toBeUndefined();
    expect(reads).toHaveLength(1);
    advance(1499);
    expect(state.ready()).toBeUndefined();
    expect(reads).toHaveLength(1);
    advance(1);
    // 1.5 s old: read again in the background, the caller served at once.
    expect(state.ready()).toBeUndefined();
    expect(state.ready()).toBeUndefined();
    expect(reads).toHaveLength(2);
  });

  it('makes callers wait once its last read is 2 s old: what it knows is never older than that', async () => {
    const { state, reads, advance } = setUp();
    await state.ready();
    advance(2000);
    const waiting = state.ready();
    expect(waiting).toBeInstanceOf(Promise);
    await waiting;
    expect(reads).toHaveLength(2);
    expect(state.ready()).toBeUndefined();
  });

  it('dates a read from when it was asked: a slow store answers within the 2 s or the next callers wait again', async () => {
    const { state, reads, advance, holdReads } = setUp();
    await state.ready();
    advance(1500);
    const release = holdReads();
    // Read in the background; the caller goes on.
    expect(state.ready()).toBeUndefined();
    advance(600);
    // 2.1 s since the last read that answered: wait, and for a new read (the one under way was asked 0.6 s ago: it may serve).
    const waiting = state.ready();
    expect(waiting).toBeInstanceOf(Promise);
    expect(reads).toHaveLength(2);
    advance(1500);
    // Now the read under way was asked 2.1 s ago: too old to decide on, a new one is asked.
    const again = state.ready();
    expect(reads).toHaveLength(3);
    release();
    await waiting;
    await again;
  });

  it('knows a sign-out it made at once, and one made elsewhere from its next read', async () => {
    const { state, ended, advance } = setUp();
    await state.ready();
    state.ended('s-here', new Date(start.getTime() + 60_000));
    expect(state.isEnded('s-here')).toBe(true);
    ended.push(endedSession('s-there', new Date(start.getTime() + 100), new Date(start.getTime() + 60_000)));
    expect(state.isEnded('s-there')).toBe(false);
    advance(2000);
    await state.ready();
    expect(state.isEnded('s-there')).toBe(true);
    expect(state.endedCount).toBe(2);
  });

  it('reads again the sign-outs dated a little before the newest it knows: one written late by a slow writer is not missed', async () => {
    const { state, ended, advance } = setUp();
    ended.push(endedSession('s-1', new Date(start.getTime() + 10_000), new Date(start.getTime() + 600_000)));
    await state.ready();
    // Visible only now, dated 3 s before the newest one read.
    ended.push(endedSession('s-late', new Date(start.getTime() + 7_000), new Date(start.getTime() + 600_000)));
    advance(2000);
    await state.ready();
    expect(state.isEnded('s-late')).toBe(true);
  });

  it('reads the keys and the first page of sign-outs at once, and a longer list page by page after it', async () => {
    const { state, ended, reads, pages } = setUp();
    const expiresAt = new Date(start.getTime() + 600_000);
    // One page (10,000) and one more, the last two at one instant, the newest a second later.
    for (let i = 0; i < 10_000; i++) ended.push(endedSession(`s-${i}`, new Date(start.getTime() - 60_000 + i), expiresAt));
    ended.push(endedSession('s-last', new Date(start.getTime() - 1_000), expiresAt));
    await state.ready();
    expect(reads).toHaveLength(1);
    expect(pages).toEqual([new Date(start.getTime() - 60_000 + 9_999)]);
    expect(state.endedCount).toBe(10_001);
    expect(state.isEnded('s-0') && state.isEnded('s-9999') && state.isEnded('s-last')).toBe(true);
  });

  it('forgets an ended session once its token has expired', async () => {
    const { state, ended, advance } = setUp();
    ended.push(endedSession('s-1', start, new Date(start.getTime() + 30_000)));
    await state.ready();
    expect(state.isEnded('s-1')).toBe(true);
    advance(61_000);
    await state.ready();
    expect(state.isEnded('s-1')).toBe(false);
  });

  it("seals with the newest key whose time has come; opens with any key until its end; learns of keys at its next read", async () => {
    const { state, keys, advance, clock } = setUp();
    await state.ready();
    const first = keys[0]!;
    expect(state.signingKey()?.kid).toBe(first.kid);
    const next = newSessionKey(new Date(clock.wall.getTime() + 5000), clock.wall);
    keys.push(next);
    keys[0] = { ...first, verifiesUntil: new Date(clock.wall.getTime() + 10_000) };
    expect(state.keyOf(next.kid)).toBeNull();
    advance(2000);
    await state.ready();
    expect(state.keyOf(next.kid)).not.toBeNull();
    expect(state.signingKey()?.kid).toBe(first.kid);
    advance(3000);
    expect(state.signingKey()?.kid).toBe(next.kid);
    expect(state.keyOf(first.kid)).not.toBeNull();
    advance(5000);
    expect(state.keyOf(first.kid)).toBeNull();
  });

  it('a read that fails is not kept: the waiting caller gets the failure, the next one reads again', async () => {
    const { state, reads } = setUp();
    const failing = new SessionState({
      store: {
        readSessionState: async () => {
          throw new Error('store unavailable');
        },
        listEndedSessions: async () => [],
      },
      clock: () => start,
    });
    await expect(failing.ready()).rejects.toThrow('store unavailable');
    await expect(failing.ready()).rejects.toThrow('store unavailable');
    await state.ready();
    expect(reads).toHaveLength(1);
  });
});
