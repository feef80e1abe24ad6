import type {
  ApiKeyRecord,
  AuditEntry,
  CatalogueItemRecord,
  ClientRecord,
  EndedSessionRecord,
  MemberRecord,
  RedemptionRecord,
  SessionKeyRecord,
  SessionRecord,
  VoucherDefinitionRecord,
  ReservationChange,
  ReservationKey,
  Wallet,
  WalletSlice,
} from '../domain/model';

/*
 * The store port, one interface per use: each service takes the one it
 * uses, and `Store`, all of them, is what the `memory/` and `mongo/`
 * adapters implement (both pass the shared suite,
 * `test-support/store.contract.ts`).
 *
 * A returned record never lets a caller change the store: adapters return
 * fresh records, or (the memory store) deep-frozen ones whose Dates are
 * shared with the store, so a caller that wants to change one copies it
 * first. An adapter that cannot reach its backing store throws
 * `StoreUnavailableError`.
 */

/** Members by correlation id: Start Session, Operation B and fixture loading read them. */
export interface MemberStore {
  findMember(correlationId: string): Promise<MemberRecord | null>;
}

/** What authentication (the API key, the session of a request) and Start Session need. */
export interface AuthStore extends MemberStore {
  /** The key with this digest (live or not) and its client (null when gone). */
  findApiKey(digest: string): Promise<ApiKeyContext | null>;
  /** The key with this public id (live or not) and its client (null when gone). */
  findApiKeyById(keyId: string): Promise<ApiKeyContext | null>;
  /**
   * Publishable keys live at `now` (neither revoked nor expired), oldest
   * first (then by keyId), at most `limit`: whose origins pages may call
   * from (CORS), and how many there are (a bounded number). One query,
   * whatever the number of secret keys.
   */
  listLivePublishableKeys(now: Date, limit: number): Promise<ApiKeyRecord[]>;
  insertSession(session: SessionRecord): Promise<void>;
  /** The session with this token hash, or null. Expired sessions may be returned; the caller checks. */
  findSession(tokenHash: string): Promise<SessionRecord | null>;
  /**
   * As `findSession`, with the session's client, member and API key in the
   * same call (null when one is gone): the credentials of Operations A and B
   * in one read.
   */
  findSessionContext(tokenHash: string): Promise<SessionContext | null>;
}

/**
 * The keys that seal session tokens and the sessions their members ended:
 * what every process reads again now and then (features/sessions/
 * session-state.ts), what sign-out writes, and what `loyalty-admin
 * session-keys` manages. Both only grow by what is added, and shrink as
 * their entries end.
 */
export interface SessionStateStore {
  /** The session keys that still open tokens at `now` (no `verifiesUntil`, or a later one), by `signsFrom`, oldest first. */
  listSessionKeys(now: Date): Promise<SessionKeyRecord[]>;
  /**
   * The deployment's first session key, for a store that serves no token of
   * an earlier release (an empty database, the embedded store): `candidate`
   * is stored unless a first key is (processes asking at once keep one),
   * and the stored first key is returned.
   */
  ensureFirstSessionKey(candidate: SessionKeyRecord): Promise<SessionKeyRecord>;
  /** A new key (a roll): stored, and every other key without a `verifiesUntil` gets `retireOthersAt`. */
  addSessionKey(key: SessionKeyRecord, retireOthersAt: Date): Promise<void>;
  /**
   * Records that a session ended (sign-out), dated by the store as it
   * writes it (so that readers of what ended since a time miss nothing a
   * late writer dated earlier); false when it had ended already, and then
   * nothing changes.
   */
  endSession(ended: Omit<EndedSessionRecord, 'endedAt'>): Promise<boolean>;
  /**
   * The ended sessions whose tokens have not expired at `now`, ended at or
   * after `since`, oldest ended first (then by id), at most `limit`.
   */
  listEndedSessions(since: Date, now: Date, limit: number): Promise<EndedSessionRecord[]>;
  /**
   * What a process reads again now and then, in one command where the store
   * can: `listSessionKeys(now)` and `listEndedSessions(endedSince, now,
   * endedLimit)` together. A longer list of ended sessions is read on with
   * `listEndedSessions`.
   */
  readSessionState(now: Date, endedSince: Date, endedLimit: number): Promise<SessionStateRead>;
}

/** The session keys that open tokens, and the first page of the ended sessions asked for. */
export interface SessionStateRead {
  keys: SessionKeyRecord[];
  ended: EndedSessionRecord[];
}

/**
 * What the listing of voucher definitions (Operation A) needs; with the
 * version when the adapter offers it (see `VoucherDefinitionsVersioned`).
 */
export interface ListingStore extends Partial<VoucherDefinitionsVersioned> {
  /**
   * Definitions with status PUBLISHED, of this business unit, whose
   * usageChannels include `channel` or are absent or empty; ascending by
   * voucherDefinitionId. Its cost must not grow with definitions of other
   * business units or statuses (an index answers it).
   */
  listPublishedVoucherDefinitions(businessUnit: string, channel: string): Promise<VoucherDefinitionRecord[]>;
}

/**
 * A capability an adapter may add: a number that changes whenever a voucher
 * definition changes, so that callers may keep what they derived from a
 * listing until it does. The in-process store answers at once; the MongoDB
 * store reads the number its writers bump, at most once a second.
 */
export interface VoucherDefinitionsVersioned {
  voucherDefinitionsVersion(): number | Promise<number>;
}

/** Whole wallets, read and compared-and-set: fixture loading and member moves; Operation B reads one when a slice will not do. */
export interface WholeWalletStore {
  /** The whole wallet; its reservations in no particular order (the same for the same stored state). */
  loadWallet(walletId: string): Promise<Wallet | null>;
  /**
   * Compare-and-set: stores `wallet` with version `expectedVersion + 1` only if
   * the stored version is still `expectedVersion` (`0`: only if no wallet with
   * this id exists yet). Returns false on conflict (someone else saved first),
   * and then changes nothing. The stored totals become `totalsOf` its
   * reservations; `wallet.audit`, when given, reaches the audit trail.
   */
  saveWallet(wallet: Wallet, expectedVersion: number): Promise<boolean>;
}

/** What Operation B (a change of one reservation) needs. */
export interface ReservationStore extends MemberStore, Pick<WholeWalletStore, 'loadWallet'> {
  /** Catalogue items of these product codes (unknown codes are left out), in any order. */
  findCatalogueItems(productCodes: string[]): Promise<CatalogueItemRecord[]>;
  findRedemption(redemptionId: string): Promise<RedemptionRecord | null>;
  /**
   * The slice of one reservation change (see `WalletSlice`), in one read whose
   * cost does not grow with the wallet's other reservations; with
   * `withMember`, that member too (as stored now, wherever its wallet is).
   */
  loadWalletSlice(walletId: string, key: ReservationKey, options?: { withMember?: string }): Promise<WalletSlice | null>;
  /**
   * Compare-and-set of one reservation change, like `saveWallet`: stores the
   * reservation (replacing the one under its key, or added), drops the
   * reservations the change found expired, and stores the totals and the
   * change's audit entry, with version `expectedVersion + 1`, only if the
   * stored version is still `expectedVersion` (which must exist); false on
   * conflict, changing nothing. Every other reservation and the balances
   * stay as stored. How much of the wallet it writes is the adapter's
   * choice: the MongoDB store writes the wallet document alone, or the
   * whole wallet when the change drops expired reservations.
   */
  saveReservationChange(change: ReservationChange, expectedVersion: number): Promise<boolean>;
}

/** The audit trail of reservation changes, as tests and operators read it. */
export interface AuditStore {
  /**
   * Audit entries of one reservation token, oldest first (by time, then
   * wallet version). An entry is here once the store has delivered it: at
   * once, or shortly after its save (the MongoDB store delivers it from the
   * wallet's outbox after the answer; its `outbox.settle()` waits for that);
   * each change's entry is here exactly once.
   */
  listAudit(reservationToken: string): Promise<AuditEntry[]>;
}

/** What the operator's key commands (`loyalty-admin keys`, the key service) need. */
export interface KeyStore extends Pick<AuthStore, 'listLivePublishableKeys'> {
  findClient(clientId: string): Promise<ClientRecord | null>;
  /** Keys of a client, live or not, oldest first (then by keyId). */
  listApiKeys(clientId: string): Promise<ApiKeyRecord[]>;
  /** A new key; throws when its keyId or digest is taken. */
  insertApiKey(key: ApiKeyRecord): Promise<void>;
  /** Sets the given fields of a key of this client; the key as it is now, or null when the client has no such key. */
  updateApiKey(clientId: string, keyId: string, change: ApiKeyChange): Promise<ApiKeyRecord | null>;
}

/**
 * What loading a fixture (`loadFixture`, features/load/) needs: each
 * upsert replaces the stored record with the same key; the stored members,
 * keys and wallets are read to merge the fixture with them.
 */
export interface FixtureStore extends MemberStore, WholeWalletStore, Pick<KeyStore, 'listApiKeys' | 'listLivePublishableKeys'> {
  upsertClients(clients: ClientRecord[]): Promise<void>;
  /** By keyId; throws when a digest belongs to another key. */
  upsertApiKeys(keys: ApiKeyRecord[]): Promise<void>;
  upsertMembers(members: MemberRecord[]): Promise<void>;
  upsertCatalogueItems(items: CatalogueItemRecord[]): Promise<void>;
  upsertRedemptions(redemptions: RedemptionRecord[]): Promise<void>;
  upsertVoucherDefinitions(definitions: VoucherDefinitionRecord[]): Promise<void>;
}

/** Readiness and shutdown. */
export interface StoreLifecycle {
  /** Resolves while the store answers; throws StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Every use at once: what an adapter implements, and what the composition root and its wrappers hold. */
export interface Store extends AuthStore, SessionStateStore, ListingStore, ReservationStore, AuditStore, KeyStore, FixtureStore, StoreLifecycle {}

/** The names of the Store's methods (every one returns a promise). */
export type StoreMethod = {
  [K in keyof Store]-?: Store[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof Store];

/** Every Store method, at run time (the compiler checks the list is complete). */
export const storeMethods = Object.keys({
  findApiKey: true,
  findApiKeyById: true,
  listLivePublishableKeys: true,
  findMember: true,
  insertSession: true,
  findSession: true,
  findSessionContext: true,
  listSessionKeys: true,
  ensureFirstSessionKey: true,
  addSessionKey: true,
  endSession: true,
  listEndedSessions: true,
  readSessionState: true,
  listPublishedVoucherDefinitions: true,
  loadWallet: true,
  saveWallet: true,
  findCatalogueItems: true,
  findRedemption: true,
  loadWalletSlice: true,
  saveReservationChange: true,
  listAudit: true,
  findClient: true,
  listApiKeys: true,
  insertApiKey: true,
  updateApiKey: true,
  upsertClients: true,
  upsertApiKeys: true,
  upsertMembers: true,
  upsertCatalogueItems: true,
  upsertRedemptions: true,
  upsertVoucherDefinitions: true,
  ping: true,
  close: true,
} satisfies Record<StoreMethod, true>) as StoreMethod[];

/**
 * The store's own voucher definitions version when it answers synchronously
 * (the in-process store), else null. Probed once: a wrapper that forwards
 * the call asynchronously, or not at all (`wrapStore` with `forwardVersion:
 * false`), counts as having none.
 */
export function voucherDefinitionsVersionReader(store: ListingStore): (() => number) | null {
  const read = store.voucherDefinitionsVersion;
  if (typeof read !== 'function') return null;
  const probe: unknown = read.call(store);
  // An asynchronous answer is not used here; its failure must not go unhandled.
  if (probe instanceof Promise) probe.catch(() => undefined);
  return typeof probe === 'number' ? () => read.call(store) as number : null;
}

/** A session with the client and the API key that started it, and its member, as stored. */
export interface SessionContext {
  session: SessionRecord;
  client: ClientRecord | null;
  member: MemberRecord | null;
  key: ApiKeyRecord | null;
}

/** An API key with its client, as stored. */
export interface ApiKeyContext {
  key: ApiKeyRecord;
  client: ClientRecord | null;
}

/** What `updateApiKey` may change: an expiry (null: none), a revocation. */
export type ApiKeyChange = Partial<Pick<ApiKeyRecord, 'expiresAt' | 'revokedAt'>>;

/** One key's counting window of the rate limit: [start, end) in epoch ms. */
export interface QuotaWindow {
  start: number;
  end: number;
}

/** What a process asks of the shared count of a key's window: a block of tokens. */
export interface QuotaClaim {
  key: string;
  window: QuotaWindow;
  /** Tokens asked for (the block). */
  want: number;
  /** Requests this process admitted on its own count in this window (the store away) that the count does not hold yet. */
  unreported: number;
}

/** The shared count's answer, after adding `want + unreported` to it atomically. */
export interface QuotaClaimAnswer {
  /** The window's count: every token claimed and every admission reported, by any process. */
  claimed: number;
  /** How many processes have claimed in this window. */
  claimers: number;
}

/** Tokens a process gives back to the shared count of a key's window, unspent. */
export interface QuotaReturn {
  key: string;
  window: QuotaWindow;
  tokens: number;
}

/**
 * A capability an adapter shared by several processes may add: the count
 * of a key's rate-limit window that all of them claim blocks of tokens
 * from (the rate limit of a fleet, `rate-limit/block-quota.ts`). One atomic
 * increment per claim, one atomic decrement per return; a claim or return
 * the store cannot answer rejects.
 */
export interface SharedQuotaStore {
  // Functions of their own (no `this`): the fleet's counter is given them as they are (composition.ts).
  readonly claimQuota: (claim: QuotaClaim) => Promise<QuotaClaimAnswer>;
  /** Takes unspent tokens off the window's count, for the others to claim; nothing when the window's count is gone (expired). */
  readonly returnQuota: (returned: QuotaReturn) => Promise<void>;
}

/**
 * A capability an adapter may add: changes it finishes after their answers
 * (the MongoDB wallets' outbox: what a change writes besides its wallet,
 * delivered after the answer), and a sweep that finishes what a stopped
 * process left. A serving process starts the sweep (the operator's
 * commands do not); tests wait for the deliveries under way; the store's
 * close ends both.
 */
export interface OutboxStore {
  readonly outbox: OutboxLifecycle;
}

/** The outbox's work in a process, one handle: composition starts it, tests settle it, the store's close ends it. */
export interface OutboxLifecycle {
  /** Starts the sweep, telling `observers` of it; a second call keeps the running one. */
  start(observers?: SweepObservers): void;
  /** Waits for the deliveries under way in this process (before a test reads the trail). */
  settle(): Promise<void>;
  /** Stops the sweep and settles: before the store's client closes. */
  close(): Promise<void>;
}

/** What a serving process is told of its outbox's sweep (composition.ts logs and measures it). */
export interface SweepObservers {
  /** A run that failed (the database away); the next run tries again. */
  onError?: (error: unknown) => void;
  /** An outbox whose delivery failed, set aside. */
  onSetAside?: (setAside: SetAside) => void;
  /** Every run that finished, with its report. */
  onRun?: (report: SweepReport) => void;
}

/** An outbox set aside: its wallet, how many deliveries of it failed, when it is taken again, and the last failure. */
export interface SetAside {
  walletId: string;
  failures: number;
  retryAt: Date;
  error: unknown;
}

/** One run of the sweep. */
export interface SweepReport {
  /** Outboxes this run delivered. */
  delivered: number;
  /** Outboxes this run removed from their wallets (delivered before, or by it). */
  cleared: number;
  /** Deliveries that failed: each outbox set aside until its retry. */
  failed: number;
  /** Outboxes past the grace still undelivered when the run was done (counted up to a bound per sweep bucket). */
  pending: number;
  /** When the oldest of them was saved; null when there is none. */
  oldestPendingAt: Date | null;
}

/** `/healthz`'s answer for a store: live, or not and why. */
export type StoreLiveness = { live: true } | { live: false; reason: string };

/**
 * A capability an adapter may add: whether its connection can still
 * recover by itself (the MongoDB store's watchdog replaces a stuck client;
 * past a limit only a restart helps, and `/healthz` says so).
 */
export interface LivenessStore {
  liveness(): StoreLiveness;
}

/**
 * A capability an adapter shared by several processes may add: the
 * deployment's key of the member hashes in logs and spans, made on first
 * use and then read, so that a member has one hash on every process.
 */
export interface SharedLogKeyStore {
  logKey(): Promise<Uint8Array>;
}

/** Whether `store` has the capability `OutboxStore`. */
export function hasOutbox<S extends object>(store: S): store is S & OutboxStore {
  return 'outbox' in store;
}

/** Whether `store` has the capability `LivenessStore`. */
export function reportsLiveness<S extends object>(store: S): store is S & LivenessStore {
  return typeof (store as Partial<LivenessStore>).liveness === 'function';
}

/** Whether `store` has the capability `SharedLogKeyStore`. */
export function sharesLogKey<S extends object>(store: S): store is S & SharedLogKeyStore {
  return typeof (store as Partial<SharedLogKeyStore>).logKey === 'function';
}

/** Whether `store` has the capability `SharedQuotaStore`: several processes share it. */
export function sharesQuota<S extends object>(store: S): store is S & SharedQuotaStore {
  return typeof (store as Partial<SharedQuotaStore>).claimQuota === 'function';
}

/** The backing store did not answer (network, timeout, server down). */
export class StoreUnavailableError extends Error {
  constructor(message = 'store unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
