/**
 * `SessionStateStore` (store/port.ts): the keys that seal session tokens,
 * and the sessions their members ended. A new store holds its first key
 * already (the embedded store from its creation, MongoDB on an empty
 * database), as a deployment starts.
 */
import type { SessionKeyRecord } from '../../../domain/model';
import { firstSessionKey, rolledSessionKey } from '../../../domain/session-keys';
import type { CurrentStore } from './contract-support';

/** A key as a store hands it back: its secret as plain bytes, whatever the caller gave. */
const asStored = (key: SessionKeyRecord): SessionKeyRecord => ({ ...key, secret: Uint8Array.from(key.secret) });

export function describeSessionStateStoreContract(current: CurrentStore): void {
  describe('SessionStateStore', () => {
    const now = new Date('2030-01-01T00:00:00.000Z');

    it('keeps one first key: every candidate gets the stored one, which it lists', async () => {
      const first = await current.store.ensureFirstSessionKey(firstSessionKey(now));
      expect(await current.store.ensureFirstSessionKey(firstSessionKey(now))).toStrictEqual(first);
      expect(await current.store.listSessionKeys(now)).toStrictEqual([first]);
    });

    it("adds a rolled key, gives every key without an end the roll's, and lists by signsFrom the keys that still open tokens", async () => {
      const first = await current.store.ensureFirstSessionKey(firstSessionKey(now));
      const { key, retireOthersAt } = rolledSessionKey(now);
      await current.store.addSessionKey(key, retireOthersAt);
      expect(await current.store.listSessionKeys(now)).toStrictEqual([{ ...first, verifiesUntil: retireOthersAt }, asStored(key)]);
      expect(await current.store.listSessionKeys(retireOthersAt)).toStrictEqual([asStored(key)]);
    });

    it('records an ended session once, and lists those ended since a time whose tokens live at `now`, oldest first, up to a limit', async () => {
      const soon = new Date('2099-01-01T00:00:00.000Z');
      const later = new Date('2099-06-01T00:00:00.000Z');
      expect(await current.store.endSession({ sessionId: 'sid-1', expiresAt: later })).toBe(true);
      expect(await current.store.endSession({ sessionId: 'sid-1', expiresAt: soon })).toBe(false);
      expect(await current.store.endSession({ sessionId: 'sid-2', expiresAt: soon })).toBe(true);
      expect(await current.store.endSession({ sessionId: 'sid-3', expiresAt: later })).toBe(true);
      const ids = async (since: Date, at: Date, limit: number) => (await current.store.listEndedSessions(since, at, limit)).map((e) => e.sessionId);
      const [ended] = await current.store.listEndedSessions(new Date(0), now, 1);
      expect(ended).toStrictEqual({ sessionId: 'sid-1', endedAt: expect.any(Date) as Date, expiresAt: later });
      expect(await ids(new Date(0), now, 10)).toEqual(['sid-1', 'sid-2', 'sid-3']);
      expect(await ids(new Date(0), now, 2)).toEqual(['sid-1', 'sid-2']);
      // A token expired at `soon` is refused without the record: the record is no longer listed.
      expect(await ids(new Date(0), soon, 10)).toEqual(['sid-1', 'sid-3']);
      expect(await ids(new Date(ended!.endedAt.getTime() + 3_600_000), now, 10)).toEqual([]);
    });

    it('reads the keys that open tokens with the first page of ended sessions, as its two lists give them', async () => {
      const first = await current.store.ensureFirstSessionKey(firstSessionKey(now));
      const { key, retireOthersAt } = rolledSessionKey(now);
      await current.store.addSessionKey(key, retireOthersAt);
      const later = new Date('2099-06-01T00:00:00.000Z');
      for (const sessionId of ['sid-1', 'sid-2', 'sid-3']) await current.store.endSession({ sessionId, expiresAt: later });
      const both = async (at: Date, since: Date, limit: number) => ({
        keys: await current.store.listSessionKeys(at),
        ended: await current.store.listEndedSessions(since, at, limit),
      });
      const read = await current.store.readSessionState(now, new Date(0), 2);
      expect(read).toStrictEqual(await both(now, new Date(0), 2));
      expect(read.keys.map((k) => k.kid)).toEqual([first.kid, key.kid]);
      expect(read.ended.map((e) => e.sessionId)).toEqual(['sid-1', 'sid-2']);
      expect(await current.store.readSessionState(retireOthersAt, read.ended[1]!.endedAt, 10)).toStrictEqual(await both(retireOthersAt, read.ended[1]!.endedAt, 10));
      expect(await current.store.readSessionState(later, new Date(0), 10)).toStrictEqual({ keys: [asStored(key)], ended: [] });
    });
  });
}
