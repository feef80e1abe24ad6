import type { EndedSessionRecord, SessionKeyRecord } from '../../domain/model';
import { frozenCopy } from '../copy';
import type { SessionStateRead, SessionStateStore } from '../port';

/**
 * The embedded store's session keys and ended sessions: plain arrays and a
 * map, one process (the port's contract: `SessionStateStore`). The first key,
 * when there is one, is the first of `keys`.
 */
export class MemorySessionState implements SessionStateStore {
  private readonly keys: SessionKeyRecord[] = [];
  private readonly ended = new Map<string, EndedSessionRecord>();

  /** `clock` dates the sign-outs. */
  constructor(private readonly clock: () => Date) {}

  async listSessionKeys(now: Date): Promise<SessionKeyRecord[]> {
    return this.keys.filter((key) => key.verifiesUntil === null || key.verifiesUntil > now).sort((a, b) => a.signsFrom.getTime() - b.signsFrom.getTime());
  }

  async ensureFirstSessionKey(candidate: SessionKeyRecord): Promise<SessionKeyRecord> {
    if (this.keys.length === 0) this.keys.push(storedKey(candidate));
    return this.keys[0]!;
  }

  async addSessionKey(key: SessionKeyRecord, retireOthersAt: Date): Promise<void> {
    for (const [i, other] of this.keys.entries()) {
      if (other.verifiesUntil === null) this.keys[i] = storedKey({ ...other, verifiesUntil: retireOthersAt });
    }
    this.keys.push(storedKey(key));
  }

  async endSession(ended: Omit<EndedSessionRecord, 'endedAt'>): Promise<boolean> {
    if (this.ended.has(ended.sessionId)) return false;
    this.ended.set(ended.sessionId, frozenCopy({ ...ended, endedAt: this.clock() }));
    return true;
  }

  async listEndedSessions(since: Date, now: Date, limit: number): Promise<EndedSessionRecord[]> {
    return [...this.ended.values()]
      .filter((e) => e.endedAt >= since && e.expiresAt > now)
      .sort((a, b) => a.endedAt.getTime() - b.endedAt.getTime() || (a.sessionId < b.sessionId ? -1 : 1))
      .slice(0, limit);
  }

  async readSessionState(now: Date, endedSince: Date, endedLimit: number): Promise<SessionStateRead> {
    return { keys: await this.listSessionKeys(now), ended: await this.listEndedSessions(endedSince, now, endedLimit) };
  }

  /** Forgets the ended sessions whose tokens have expired at `now`; returns how many. */
  sweep(now: Date): number {
    let removed = 0;
    for (const [sessionId, ended] of this.ended) {
      if (ended.expiresAt <= now) {
        this.ended.delete(sessionId);
        removed++;
      }
    }
    for (let i = this.keys.length - 1; i >= 0; i--) {
      const until = this.keys[i]!.verifiesUntil;
      if (until !== null && until <= now) this.keys.splice(i, 1);
    }
    return removed;
  }
}

/** A key as kept: its own copy of the secret (bytes, which `frozenCopy` does not copy), the record frozen. */
function storedKey(key: SessionKeyRecord): SessionKeyRecord {
  return Object.freeze({ ...key, secret: Uint8Array.from(key.secret), createdAt: new Date(key.createdAt), signsFrom: new Date(key.signsFrom) });
}
