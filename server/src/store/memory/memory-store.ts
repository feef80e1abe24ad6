import { systemClock, type Clock } from '../../domain/clock';
import {
  publishedStatus,
  type ApiKeyRecord,
  type AuditEntry,
  type CatalogueItemRecord,
  type ClientRecord,
  type EndedSessionRecord,
  type MemberBalance,
  type MemberMove,
  type MemberRecord,
  type RedemptionRecord,
  type ReservationKey,
  type ReservationRecord,
  type SessionKeyRecord,
  type SessionRecord,
  type VoucherDefinitionRecord,
  type ReservationChange,
  type Wallet,
  type WalletSlice,
} from '../../domain/model';
import { isLiveKey } from '../../domain/model';
import { firstSessionKey } from '../../domain/session-keys';
import { totalsOf, type WalletTotals } from '../../domain/wallet-totals';
import { frozenCopy } from '../copy';
import { compareKeys } from '../key-order';
import type { ApiKeyChange, ApiKeyContext, SessionContext, SessionStateRead, Store, VoucherDefinitionsVersioned } from '../port';
import { assertExpectedVersion } from '../wallet-update';
import { AuditLog } from './audit-log';
import { FrozenRecords } from './frozen-records';
import { MemorySessionState } from './session-state';
import { frozenReservation, frozenTotals, frozenWallet } from './frozen-wallet';

export interface MemoryStoreOptions {
  /**
   * Decides which sessions are expired and may be dropped. Pass the clock the
   * services use when it is not the system clock (tests with a fixed time),
   * or the store would drop sessions the services still consider valid.
   */
  clock?: Clock;
  /** How often expired sessions are swept; 0 turns the sweep off. Default one minute. */
  sessionSweepIntervalMs?: number;
  /**
   * The session key the store starts with (default: a first key of its
   * own, sealing at once: a new embedded store serves no token of an
   * earlier release); null: none, so that sessions are stored as before
   * sealed tokens (tests of that path).
   */
  firstSessionKey?: SessionKeyRecord | null;
}

/**
 * The in-process store: plain maps, one process, no persistence. Records
 * are copied and deep-frozen on the way in and handed out as they are:
 * nobody can change what the store holds but through its methods (writing
 * to a frozen record throws), and the reads every request makes copy
 * nothing. Wallets are kept as frozen values too, their unchanged parts
 * shared between versions (frozen-wallet.ts). Every method works
 * synchronously inside its promise, so a compare-and-set is atomic with
 * respect to other callers.
 */
export class MemoryStore implements Store, VoucherDefinitionsVersioned {
  private readonly clock: Clock;
  private readonly clients = new FrozenRecords<ClientRecord>((c) => c.clientId);
  private readonly apiKeys = new Map<string, ApiKeyRecord>();
  private readonly keyIdByDigest = new Map<string, string>();
  private readonly members = new FrozenRecords<MemberRecord>((m) => m.correlationId);
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly catalogue = new FrozenRecords<CatalogueItemRecord>((i) => i.productCode);
  private readonly redemptions = new FrozenRecords<RedemptionRecord>((r) => r.redemptionId);
  private readonly definitions = new Map<string, VoucherDefinitionRecord>();
  /** businessUnit -> status -> definitions sorted by id: listing touches only its own bucket. */
  private readonly definitionIndex = new Map<string, Map<string, VoucherDefinitionRecord[]>>();
  /** Per wallet: its parts, deep-frozen (frozen-wallet.ts) and handed out as they are (see `StoredWallet`). */
  private readonly wallets = new Map<string, StoredWallet>();
  private readonly audit = new AuditLog();
  private readonly sessionState: MemorySessionState;
  /** Bumped by every change to voucher definitions (see `voucherDefinitionsVersion`). */
  private definitionsVersion = 0;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(options: MemoryStoreOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.sessionState = new MemorySessionState(this.clock);
    const firstKey = options.firstSessionKey === undefined ? firstSessionKey(this.clock()) : options.firstSessionKey;
    if (firstKey) void this.sessionState.ensureFirstSessionKey(firstKey);
    const interval = options.sessionSweepIntervalMs ?? 60_000;
    if (interval > 0) {
      this.sweepTimer = setInterval(() => this.sweepExpiredSessions(), interval);
      // The sweep is housekeeping: it must never keep the process alive.
      this.sweepTimer.unref();
    }
  }

  // --- clients -------------------------------------------------------------

  async findClient(clientId: string): Promise<ClientRecord | null> {
    return this.clients.find(clientId);
  }

  async upsertClients(clients: ClientRecord[]): Promise<void> {
    this.clients.upsert(clients);
  }

  // --- API keys ------------------------------------------------------------

  async findApiKey(digest: string): Promise<ApiKeyContext | null> {
    const keyId = this.keyIdByDigest.get(digest);
    return keyId === undefined ? null : this.findApiKeyById(keyId);
  }

  async findApiKeyById(keyId: string): Promise<ApiKeyContext | null> {
    const key = this.apiKeys.get(keyId);
    if (!key) return null;
    return { key, client: this.clients.find(key.clientId) };
  }

  async listApiKeys(clientId: string): Promise<ApiKeyRecord[]> {
    return [...this.apiKeys.values()].filter((key) => key.clientId === clientId).sort(oldestKeyFirst);
  }

  async listLivePublishableKeys(now: Date, limit: number): Promise<ApiKeyRecord[]> {
    return [...this.apiKeys.values()]
      .filter((key) => key.kind === 'publishable' && isLiveKey(key, now))
      .sort(oldestKeyFirst)
      .slice(0, limit);
  }

  /** Like the MongoDB adapter's unique indexes: a keyId and a digest each belong to one key. */
  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    if (this.apiKeys.has(key.keyId)) throw new Error(`API key ${key.keyId} already exists`);
    if (this.keyIdByDigest.has(key.digest)) throw new Error(`API key ${key.keyId}: digest already belongs to another key`);
    this.storeApiKey(key);
  }

  async updateApiKey(clientId: string, keyId: string, change: ApiKeyChange): Promise<ApiKeyRecord | null> {
    const key = this.apiKeys.get(keyId);
    if (!key || key.clientId !== clientId) return null;
    const updated = frozenCopy({ ...key, ...change });
    this.apiKeys.set(keyId, updated);
    return updated;
  }

  async upsertApiKeys(keys: ApiKeyRecord[]): Promise<void> {
    for (const key of keys) {
      const owner = this.keyIdByDigest.get(key.digest);
      if (owner !== undefined && owner !== key.keyId) throw new Error(`API key ${key.keyId}: digest already belongs to another key`);
      const previous = this.apiKeys.get(key.keyId);
      if (previous) this.keyIdByDigest.delete(previous.digest);
      this.storeApiKey(key);
    }
  }

  private storeApiKey(key: ApiKeyRecord): void {
    this.apiKeys.set(key.keyId, frozenCopy(key));
    this.keyIdByDigest.set(key.digest, key.keyId);
  }

  // --- members -------------------------------------------------------------

  async findMember(correlationId: string): Promise<MemberRecord | null> {
    return this.members.find(correlationId);
  }

  async upsertMembers(members: MemberRecord[]): Promise<void> {
    this.members.upsert(members);
  }

  // --- sessions ------------------------------------------------------------

  /** Token hashes come from 128+ random bits: a duplicate is a bug, not a case to merge. */
  async insertSession(session: SessionRecord): Promise<void> {
    if (this.sessions.has(session.tokenHash)) throw new Error('session token hash already exists');
    this.sessions.set(session.tokenHash, frozenCopy(session));
  }

  async findSession(tokenHash: string): Promise<SessionRecord | null> {
    const session = this.sessions.get(tokenHash);
    if (!session) return null;
    if (this.isExpired(session)) {
      this.sessions.delete(tokenHash);
      return null;
    }
    return session;
  }

  async findSessionContext(tokenHash: string): Promise<SessionContext | null> {
    const session = await this.findSession(tokenHash);
    if (!session) return null;
    const key = this.apiKeys.get(session.keyId);
    return { session, client: this.clients.find(session.clientId), member: this.members.find(session.correlationId), key: key ?? null };
  }

  // --- session keys and ended sessions ---------------------------------------

  listSessionKeys(now: Date): Promise<SessionKeyRecord[]> {
    return this.sessionState.listSessionKeys(now);
  }

  ensureFirstSessionKey(candidate: SessionKeyRecord): Promise<SessionKeyRecord> {
    return this.sessionState.ensureFirstSessionKey(candidate);
  }

  addSessionKey(key: SessionKeyRecord, retireOthersAt: Date): Promise<void> {
    return this.sessionState.addSessionKey(key, retireOthersAt);
  }

  endSession(ended: Omit<EndedSessionRecord, 'endedAt'>): Promise<boolean> {
    return this.sessionState.endSession(ended);
  }

  listEndedSessions(since: Date, now: Date, limit: number): Promise<EndedSessionRecord[]> {
    return this.sessionState.listEndedSessions(since, now, limit);
  }

  readSessionState(now: Date, endedSince: Date, endedLimit: number): Promise<SessionStateRead> {
    return this.sessionState.readSessionState(now, endedSince, endedLimit);
  }

  /** Drops every expired session, stored or ended, and the keys past their time; returns how many sessions. Runs on the sweep timer. */
  sweepExpiredSessions(): number {
    let removed = this.sessionState.sweep(this.clock());
    for (const [tokenHash, session] of this.sessions) {
      if (this.isExpired(session)) {
        this.sessions.delete(tokenHash);
        removed++;
      }
    }
    return removed;
  }

  private isExpired(session: SessionRecord): boolean {
    return session.expiresAt.getTime() < this.clock().getTime();
  }

  // --- voucher definitions ------------------------------------------------

  async listPublishedVoucherDefinitions(businessUnit: string, channel: string): Promise<VoucherDefinitionRecord[]> {
    const bucket = this.definitionIndex.get(businessUnit)?.get(publishedStatus) ?? [];
    return bucket.filter((d) => usableOn(d, channel));
  }

  voucherDefinitionsVersion(): number {
    return this.definitionsVersion;
  }

  async upsertVoucherDefinitions(definitions: VoucherDefinitionRecord[]): Promise<void> {
    this.definitionsVersion++;
    for (const definition of definitions) {
      const previous = this.definitions.get(definition.voucherDefinitionId);
      if (previous) this.removeFromIndex(previous);
      const stored = frozenCopy(definition);
      this.definitions.set(stored.voucherDefinitionId, stored);
      this.addToIndex(stored);
    }
  }

  private bucketOf(definition: VoucherDefinitionRecord): VoucherDefinitionRecord[] {
    let byStatus = this.definitionIndex.get(definition.businessUnit);
    if (!byStatus) this.definitionIndex.set(definition.businessUnit, (byStatus = new Map<string, VoucherDefinitionRecord[]>()));
    let bucket = byStatus.get(definition.status);
    if (!bucket) byStatus.set(definition.status, (bucket = []));
    return bucket;
  }

  private addToIndex(definition: VoucherDefinitionRecord): void {
    const bucket = this.bucketOf(definition);
    bucket.splice(insertionIndex(bucket, definition.voucherDefinitionId), 0, definition);
  }

  private removeFromIndex(definition: VoucherDefinitionRecord): void {
    const bucket = this.bucketOf(definition);
    const index = insertionIndex(bucket, definition.voucherDefinitionId);
    if (bucket[index]?.voucherDefinitionId === definition.voucherDefinitionId) bucket.splice(index, 1);
  }

  // --- catalogue and redemptions ------------------------------------------

  async findCatalogueItems(productCodes: string[]): Promise<CatalogueItemRecord[]> {
    return [...new Set(productCodes)].flatMap((code) => {
      const item = this.catalogue.find(code);
      return item ? [item] : [];
    });
  }

  async upsertCatalogueItems(items: CatalogueItemRecord[]): Promise<void> {
    this.catalogue.upsert(items);
  }

  async findRedemption(redemptionId: string): Promise<RedemptionRecord | null> {
    return this.redemptions.find(redemptionId);
  }

  async upsertRedemptions(redemptions: RedemptionRecord[]): Promise<void> {
    this.redemptions.upsert(redemptions);
  }

  // --- wallets -------------------------------------------------------------

  async loadWallet(walletId: string): Promise<Wallet | null> {
    const stored = this.wallets.get(walletId);
    return stored ? wholeOf(stored) : null;
  }

  async saveWallet(wallet: Wallet, expectedVersion: number): Promise<boolean> {
    assertExpectedVersion(expectedVersion);
    const stored = this.wallets.get(wallet.walletId);
    if ((stored?.version ?? 0) !== expectedVersion) return false;
    const next = frozenWallet(wallet, expectedVersion + 1, stored && wholeOf(stored));
    this.wallets.set(wallet.walletId, storedWalletOf(next));
    // The trail is in this process too: the entry is in it with the change, nothing is left for later.
    if (wallet.audit) this.audit.append(wallet.audit);
    return true;
  }

  async loadWalletSlice(walletId: string, key: ReservationKey, options: { withMember?: string } = {}): Promise<WalletSlice | null> {
    const stored = this.wallets.get(walletId);
    if (!stored) return null;
    const slice: WalletSlice = {
      walletId,
      version: stored.version,
      balances: stored.balances,
      totals: stored.totals,
      reservation: stored.reservations.get(keyString(key)) ?? null,
    };
    if (stored.moves) slice.moves = stored.moves;
    if (options.withMember !== undefined) slice.member = this.members.find(options.withMember);
    return slice;
  }

  /**
   * Replaces or adds one frozen record in place, and deletes the expired
   * ones the change names: work in proportion to what the change touches,
   * whatever the wallet holds.
   */
  async saveReservationChange(change: ReservationChange, expectedVersion: number): Promise<boolean> {
    assertExpectedVersion(expectedVersion);
    const stored = this.wallets.get(change.walletId);
    if (!stored || stored.version !== expectedVersion) return false;
    for (const key of change.expired ?? []) stored.reservations.delete(keyString(key));
    stored.reservations.set(keyString(change.reservation), frozenReservation(change.reservation));
    stored.version = expectedVersion + 1;
    stored.totals = frozenTotals(change.totals);
    stored.whole = null;
    if (change.audit) this.audit.append(change.audit);
    return true;
  }

  // --- audit ---------------------------------------------------------------

  /** Oldest first; the wallet version orders entries with the same time. */
  async listAudit(reservationToken: string): Promise<AuditEntry[]> {
    return this.audit.list(reservationToken).sort((a, b) => a.at.getTime() - b.at.getTime() || a.walletVersion - b.walletVersion);
  }

  // --- lifecycle -----------------------------------------------------------

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    for (const map of [
      this.clients,
      this.apiKeys,
      this.keyIdByDigest,
      this.members,
      this.sessions,
      this.catalogue,
      this.redemptions,
      this.definitions,
      this.definitionIndex,
      this.wallets,
    ]) {
      map.clear();
    }
    this.audit.clear();
    this.definitionsVersion++;
  }
}

function oldestKeyFirst(a: ApiKeyRecord, b: ApiKeyRecord): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || compareKeys(a.keyId, b.keyId);
}

/** usageChannels absent or empty means "usable everywhere". */
function usableOn(definition: VoucherDefinitionRecord, channel: string): boolean {
  const channels = definition.usageChannels;
  return !channels || channels.length === 0 || channels.includes(channel);
}

/** First index whose id is not below `id` (binary search over a sorted bucket). */
function insertionIndex(bucket: VoucherDefinitionRecord[], id: string): number {
  let low = 0;
  let high = bucket.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const candidate = bucket[middle];
    if (candidate && compareKeys(candidate.voucherDefinitionId, id) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * A wallet as the memory store keeps it: its reservations by key, in the
 * wallet's order (a Map keeps insertion order, and a replaced key keeps its
 * place), with their running totals. A reservation change sets one entry in
 * place, so it costs the same whatever the wallet holds; copying the list
 * for every change (copy-on-write) made Operation B's cost grow with the
 * wallet, most of it in garbage collection (bench/README.md). The whole
 * wallet, a frozen value, is built when asked for and kept until the next
 * change.
 */
interface StoredWallet {
  readonly walletId: string;
  version: number;
  readonly balances: MemberBalance[];
  readonly moves: MemberMove[] | undefined;
  readonly reservations: Map<string, ReservationRecord>;
  totals: WalletTotals;
  whole: Wallet | null;
}

/** From a frozen wallet (frozen-wallet.ts), which becomes its whole value. */
function storedWalletOf(wallet: Wallet): StoredWallet {
  const reservations = new Map<string, ReservationRecord>();
  for (const r of wallet.reservations) reservations.set(keyString(r), r);
  return {
    walletId: wallet.walletId,
    version: wallet.version,
    balances: wallet.balances,
    moves: wallet.moves,
    reservations,
    totals: frozenTotals(totalsOf(wallet.reservations)),
    whole: wallet,
  };
}

function wholeOf(stored: StoredWallet): Wallet {
  if (stored.whole) return stored.whole;
  const wallet: Wallet = {
    walletId: stored.walletId,
    version: stored.version,
    balances: stored.balances,
    reservations: Object.freeze([...stored.reservations.values()]) as ReservationRecord[],
  };
  if (stored.moves) wallet.moves = stored.moves;
  stored.whole = Object.freeze(wallet);
  return stored.whole;
}

/** A reservation key as one string; length prefixes keep distinct keys distinct whatever characters they hold. */
function keyString(key: ReservationKey): string {
  return `${key.clientId.length}:${key.clientId}${key.correlationId.length}:${key.correlationId}${key.reservationToken}`;
}
