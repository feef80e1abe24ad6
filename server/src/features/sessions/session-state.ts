import type { Clock } from '../../domain/clock';
import type { EndedSessionRecord, SessionKeyRecord } from '../../domain/model';
import { signingKeyAt } from '../../domain/session-keys';
import { sealingKey, type SealingKey } from '../../domain/session-tokens';
import type { SessionStateStore } from '../../store/port';

/**
 * How often a process reads the session keys and the ended sessions again,
 * at most (in the background, while a request goes on), and from when its
 * last read is too old to decide on (a request then waits for a new one):
 * a sign-out holds on every process within `sessionStateFreshMs`, a new key
 * is known to every process within it, whatever the store's latency. A read
 * every 1.5 s leaves half a second for it to answer before any request
 * waits, for two thirds of the commands a read a second would cost.
 */
export const sessionStateRefreshMs = 1500;
export const sessionStateFreshMs = 2000;

/**
 * Ended sessions are read again with this overlap before the newest one a
 * read brought: the store dates each sign-out as it writes it, and a
 * sign-out written just before a read may become visible just after it.
 */
export const endedReadOverlapMs = 5000;

/** Ended sessions one read brings at most; a longer list is read in pages. */
const endedPageSize = 10_000;

/** Ended sessions are forgotten once their tokens have expired, checked this often. */
const purgeEveryMs = 60_000;

export interface SessionStateOptions {
  store: Pick<SessionStateStore, 'readSessionState' | 'listEndedSessions'>;
  /** The wall clock: when keys seal and stop opening, when sessions expire. */
  clock: Clock;
  /** Milliseconds of a monotonic clock: how old a read is (tests). Default `performance.now`. */
  now?: () => number;
  /** Default `sessionStateRefreshMs`. */
  refreshMs?: number;
  /** Default `sessionStateFreshMs`. */
  freshMs?: number;
}

interface KnownKey {
  record: SessionKeyRecord;
  sealing: SealingKey;
}

/**
 * What one process knows of the session keys and of the sessions their
 * members ended, read again from the store at most once per `refreshMs`
 * for all requests (one `readSessionState`: the keys and what ended since
 * the last read, one command on MongoDB), never per request. A request
 * that needs it calls `ready()` first: at once while the last read is
 * recent, waiting for a new read once it is `freshMs` old (a read is dated
 * from when it was asked, so a slow store never stretches the bound). A
 * sign-out this process makes counts here at once (`ended`).
 *
 * Every ended session whose token has not expired is kept, however many:
 * the number is bounded where sign-outs are accepted (`endedCount`).
 */
export class SessionState {
  private readonly keys = new Map<string, KnownKey>();
  /** Ended sessions: id to when its token expires (epoch ms). */
  private readonly endedSessions = new Map<string, number>();
  /** The newest sign-out a read brought, as the store dated it. */
  private endedCursor = new Date(0);
  /** When the last successful read was asked (monotonic ms); null: never. */
  private knownAt: number | null = null;
  private reading: { askedAt: number; done: Promise<void> } | null = null;
  private lastPurgeAt = Number.NEGATIVE_INFINITY;
  private readonly now: () => number;
  private readonly refreshMs: number;
  private readonly freshMs: number;

  constructor(private readonly options: SessionStateOptions) {
    this.now = options.now ?? (() => performance.now());
    this.refreshMs = options.refreshMs ?? sessionStateRefreshMs;
    this.freshMs = options.freshMs ?? sessionStateFreshMs;
  }

  /**
   * Undefined when what this process knows may be used now; otherwise a
   * promise of a read recent enough (which rejects when the store cannot
   * answer). A read older than `refreshMs` is renewed in the background.
   */
  ready(): Promise<void> | undefined {
    const at = this.now();
    const age = this.knownAt === null ? Number.POSITIVE_INFINITY : at - this.knownAt;
    if (age < this.refreshMs) return undefined;
    // A read under way is joined only if it was asked recently enough to decide on.
    if (!this.reading || at - this.reading.askedAt >= this.freshMs) this.reading = this.read(at);
    const { done } = this.reading;
    if (age < this.freshMs) {
      done.catch(() => undefined);
      return undefined;
    }
    return done;
  }

  /** The key that seals new tokens now; null when there is none yet (the store holds no key: sessions are stored as before). */
  signingKey(): SealingKey | null {
    const signing = signingKeyAt([...this.keys.values()].map((known) => known.record), this.options.clock());
    return signing ? this.keys.get(signing.kid)!.sealing : null;
  }

  /** The key of `kid` while it opens tokens; null when this process knows none (after `ready()`: no such key). */
  keyOf(kid: string): SealingKey | null {
    const known = this.keys.get(kid);
    if (!known) return null;
    const until = known.record.verifiesUntil;
    return until === null || until > this.options.clock() ? known.sealing : null;
  }

  /** Whether the session has ended (signed out) as far as this process knows. */
  isEnded(sessionId: string): boolean {
    return this.endedSessions.has(sessionId);
  }

  /** A sign-out this process made: it holds here at once. */
  ended(sessionId: string, expiresAt: Date): void {
    this.endedSessions.set(sessionId, expiresAt.getTime());
  }

  /** Ended sessions this process keeps, their tokens not yet expired (about). */
  get endedCount(): number {
    return this.endedSessions.size;
  }

  private read(askedAt: number): { askedAt: number; done: Promise<void> } {
    const reading = { askedAt, done: this.readNow(askedAt) };
    const forget = () => {
      if (this.reading === reading) this.reading = null;
    };
    reading.done.then(forget, forget);
    return reading;
  }

  private async readNow(askedAt: number): Promise<void> {
    const wallNow = this.options.clock();
    const since = new Date(this.endedCursor.getTime() - endedReadOverlapMs);
    const { keys, ended } = await this.options.store.readSessionState(wallNow, since, endedPageSize);
    this.knowKeys(keys);
    await this.knowEnded(ended, since, wallNow);
    this.purge(wallNow, askedAt);
    if (this.knownAt === null || askedAt > this.knownAt) this.knownAt = askedAt;
  }

  /** The keys read are the ones there are: new ones and new ends are taken, those gone forgotten. */
  private knowKeys(keys: SessionKeyRecord[]): void {
    for (const record of keys) {
      if (!this.keys.has(record.kid) || this.keys.get(record.kid)!.record.verifiesUntil !== record.verifiesUntil) {
        this.keys.set(record.kid, { record, sealing: sealingKey(record.kid, record.secret) });
      }
    }
    for (const kid of this.keys.keys()) if (!keys.some((record) => record.kid === kid)) this.keys.delete(kid);
  }

  /** The sign-outs since the last read (with the overlap): the first page the read brought, the next ones read page by page. */
  private async knowEnded(firstPage: EndedSessionRecord[], firstSince: Date, wallNow: Date): Promise<void> {
    let page = firstPage;
    let since = firstSince;
    for (;;) {
      for (const ended of page) {
        this.endedSessions.set(ended.sessionId, ended.expiresAt.getTime());
        if (ended.endedAt > this.endedCursor) this.endedCursor = ended.endedAt;
      }
      const last = page.at(-1);
      // A page of one instant only could not move on: its sessions are all here.
      if (page.length < endedPageSize || !last || last.endedAt.getTime() === since.getTime()) return;
      since = last.endedAt;
      page = await this.options.store.listEndedSessions(since, wallNow, endedPageSize);
    }
  }

  /** Forgets the ended sessions whose tokens have expired, once a minute at most. */
  private purge(wallNow: Date, at: number): void {
    if (at - this.lastPurgeAt < purgeEveryMs) return;
    this.lastPurgeAt = at;
    const now = wallNow.getTime();
    for (const [sessionId, expiresAt] of this.endedSessions) if (expiresAt <= now) this.endedSessions.delete(sessionId);
  }
}
