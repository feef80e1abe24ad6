import type { AnyBulkWriteOperation, Collection, Filter } from 'mongodb';
import { PolledValue } from '../../caching/polled-value';
import { systemClock } from '../../domain/clock';
import {
  publishedStatus,
  type ApiKeyRecord,
  type AuditEntry,
  type CatalogueItemRecord,
  type ClientRecord,
  type EndedSessionRecord,
  type MemberRecord,
  type RedemptionRecord,
  type ReservationChange,
  type ReservationKey,
  type SessionKeyRecord,
  type SessionRecord,
  type VoucherDefinitionRecord,
  type Wallet,
  type WalletSlice,
} from '../../domain/model';
import type {
  ApiKeyChange,
  ApiKeyContext,
  LivenessStore,
  OutboxStore,
  SessionContext,
  SessionStateRead,
  SessionStateStore,
  SharedLogKeyStore,
  SharedQuotaStore,
  Store,
  StoreLiveness,
  VoucherDefinitionsVersioned,
} from '../port';
import { firstSessionKey } from '../../domain/session-keys';
import { mongoSessionState } from './session-state';
import { collectionNames, currentCollections, isKey, requireKey, type Collections } from './collections';
import { MongoConnection, type ConnectionObserver, type MongoConnectionOptions, type StoreConnection } from './connection';
import { bumpDefinitionsVersion, readDefinitionsVersion } from './definitions-version';
import {
  apiKeyDoc,
  apiKeyFromDoc,
  catalogueItemBody,
  catalogueItemFromDoc,
  clientBody,
  clientFromDoc,
  memberBody,
  memberFromDoc,
  redemptionBody,
  redemptionFromDoc,
  sessionDoc,
  sessionFromDoc,
  voucherDefinitionBody,
  voucherDefinitionFromDoc,
  type ApiKeyDoc,
  type Body,
  type ClientDoc,
  type MemberDoc,
  type SessionDoc,
} from './documents';
import { readOrCreateLogKey } from './log-key';
import { ensureIndexes } from './indexes';
import { prepareLayout } from './layout';
import { quotaClaims, quotaReturns } from './quota-claim';
import { MongoWallets, type MongoWalletsDeps } from './wallets/mongo-wallets';
import { auditFromDoc } from './wallets/documents';
import { Outbox } from './wallets/outbox';

/** How to reach the database; the watchdog's settings have defaults (connection.ts). */
export type MongoStoreOptions = MongoConnectionOptions;

/** How often a process asks whether voucher definitions changed (see definitions-version.ts). */
export const definitionsVersionCheckMs = 1000;

/**
 * The store on MongoDB, official driver, mainstream commands only (no
 * transactions, $text, collations or update pipelines), so it runs on any
 * supported deployment. Consistency of points rests on one compare-and-set
 * of a wallet document per change (see wallets/mongo-wallets.ts).
 */
export class MongoStore implements Store, VoucherDefinitionsVersioned, SharedQuotaStore, OutboxStore, LivenessStore, SharedLogKeyStore {
  /** The collections of the current client. */
  private readonly collections: () => Collections;
  private readonly definitionsVersion: PolledValue<number>;
  private readonly sessionState: SessionStateStore;
  /** The wallets' outbox and its sweep (wallets/outbox.ts): a serving process starts it; `close` ends it. */
  readonly outbox: Pick<Outbox, 'start' | 'settle' | 'close'>;
  /** The rate limit's claims of this process, counted with every process on this database (quota-claim.ts). */
  readonly claimQuota: SharedQuotaStore['claimQuota'];
  /** Tokens this process gives back to those counts, unspent (quota-claim.ts). */
  readonly returnQuota: SharedQuotaStore['returnQuota'];
  /** The wallets, their slices and reservation changes (wallets/mongo-wallets.ts). */
  private readonly wallets: MongoWallets;

  private constructor(private readonly connection: StoreConnection) {
    this.collections = currentCollections(connection);
    const walletsDeps: MongoWalletsDeps = { collections: this.collections, run: (operation) => connection.run(operation), now: systemClock };
    const outbox = new Outbox(walletsDeps);
    this.wallets = new MongoWallets(walletsDeps, outbox);
    this.outbox = outbox;
    this.claimQuota = quotaClaims(() => connection.db);
    this.returnQuota = quotaReturns(() => connection.db);
    this.sessionState = mongoSessionState(() => connection.db);
    this.definitionsVersion = new PolledValue(() => this.run(() => readDefinitionsVersion(this.connection.db)), definitionsVersionCheckMs);
  }

  /**
   * Connects, checks the server answers, checks the database holds the data
   * layout this server knows (an empty one is given it; another layout is a
   * `LayoutMismatchError`, see layout.ts) and creates the indexes. An
   * unreachable server gives `StoreUnavailableError` whose message is the
   * driver's own reason (for the operator: it names hosts); a malformed URI
   * gives the driver's parse error (a configuration mistake, not an outage).
   */
  static async connect(options: MongoStoreOptions, observer?: ConnectionObserver): Promise<MongoStore> {
    const connection = await MongoConnection.open(options, observer);
    const store = new MongoStore(connection);
    try {
      const { empty } = await connection.run(() => prepareLayout(connection.db));
      await store.ensureIndexes();
      // No process of an earlier release can hold this database's tokens: sealed tokens from the start (an existing one waits for `loyalty-admin session-keys roll`).
      if (empty) await store.ensureFirstSessionKey(firstSessionKey(systemClock()));
      return store;
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw error;
    }
  }

  /** A store over a connection made elsewhere (tests that watch a client's commands). */
  static over(connection: StoreConnection): MongoStore {
    return new MongoStore(connection);
  }

  /** The deployment's log key, made on first use (log-key.ts). */
  logKey(): Promise<Buffer> {
    return this.run(() => readOrCreateLogKey(this.connection.db));
  }

  /** Live unless the watchdog found the client stuck for too long to recover without a restart (connection.ts). */
  liveness(): StoreLiveness {
    const health = this.connection.health();
    if (health.recoverable) return { live: true };
    const since = health.stuckSince?.toISOString() ?? 'a while';
    return { live: false, reason: `MongoDB answers a fresh client but not this process's since ${since}, after ${health.rebuilds} client replacements` };
  }

  /** Creates the indexes of every query (indexes.ts); idempotent. */
  async ensureIndexes(): Promise<void> {
    await this.run(() => ensureIndexes(this.connection.db));
  }

  // --- clients -------------------------------------------------------------

  async findClient(clientId: string): Promise<ClientRecord | null> {
    return this.findByKey((c) => c.clients, clientId, clientFromDoc);
  }

  async upsertClients(clients: ClientRecord[]): Promise<void> {
    await this.replaceAll(this.collections().clients, clients.map((c) => [requireKey(c.clientId, 'clientId'), clientBody(c)]));
  }

  // --- API keys ------------------------------------------------------------

  /** One aggregate: the key by its digest (unique index), then its client by `_id`. */
  async findApiKey(digest: string): Promise<ApiKeyContext | null> {
    return isKey(digest) ? this.findKeyWithClient({ digest }) : null;
  }

  /** One aggregate: the key by its id, then its client by `_id`. */
  async findApiKeyById(keyId: string): Promise<ApiKeyContext | null> {
    return isKey(keyId) ? this.findKeyWithClient({ _id: keyId }) : null;
  }

  private async findKeyWithClient(filter: { digest: string } | { _id: string }): Promise<ApiKeyContext | null> {
    const [found] = await this.run(() =>
      this.collections().apiKeys
        .aggregate<ApiKeyDoc & { client: ClientDoc[] }>([
          { $match: filter },
          { $lookup: { from: collectionNames.clients, localField: 'clientId', foreignField: '_id', as: 'client' } },
        ])
        .toArray(),
    );
    if (!found) return null;
    const [client] = found.client;
    return { key: apiKeyFromDoc(found), client: client ? clientFromDoc(client) : null };
  }

  /** One find on the publishable keys' own index (secret keys are not in it). */
  async listLivePublishableKeys(now: Date, limit: number): Promise<ApiKeyRecord[]> {
    const filter = { kind: 'publishable' as const, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] };
    const docs = await this.run(() => this.collections().apiKeys.find(filter).sort({ createdAt: 1, _id: 1 }).limit(limit).toArray());
    return docs.map(apiKeyFromDoc);
  }

  async listApiKeys(clientId: string): Promise<ApiKeyRecord[]> {
    if (!isKey(clientId)) return [];
    const docs = await this.run(() => this.collections().apiKeys.find({ clientId }).sort({ createdAt: 1, _id: 1 }).toArray());
    return docs.map(apiKeyFromDoc);
  }

  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    requireKey(key.keyId, 'keyId');
    requireKey(key.digest, 'digest');
    await this.run(() => this.collections().apiKeys.insertOne(apiKeyDoc(key)));
  }

  async updateApiKey(clientId: string, keyId: string, change: ApiKeyChange): Promise<ApiKeyRecord | null> {
    if (!isKey(clientId) || !isKey(keyId)) return null;
    const fields: Partial<ApiKeyDoc> = {};
    if (change.expiresAt !== undefined) fields.expiresAt = change.expiresAt;
    if (change.revokedAt !== undefined) fields.revokedAt = change.revokedAt;
    const doc = await this.run(() =>
      this.collections().apiKeys.findOneAndUpdate({ _id: keyId, clientId }, { $set: fields }, { returnDocument: 'after' }),
    );
    return doc ? apiKeyFromDoc(doc) : null;
  }

  async upsertApiKeys(keys: ApiKeyRecord[]): Promise<void> {
    await this.replaceAll(
      this.collections().apiKeys,
      keys.map((k) => {
        requireKey(k.digest, 'digest');
        const { _id, ...body } = apiKeyDoc(k);
        return [requireKey(_id, 'keyId'), body];
      }),
    );
  }

  // --- members -------------------------------------------------------------

  async findMember(correlationId: string): Promise<MemberRecord | null> {
    return this.findByKey((c) => c.members, correlationId, memberFromDoc);
  }

  async upsertMembers(members: MemberRecord[]): Promise<void> {
    await this.replaceAll(this.collections().members, members.map((m) => [requireKey(m.correlationId, 'correlationId'), memberBody(m)]));
  }

  // --- sessions ------------------------------------------------------------

  async insertSession(session: SessionRecord): Promise<void> {
    requireKey(session.tokenHash, 'tokenHash');
    await this.run(() => this.collections().sessions.insertOne(sessionDoc(session)));
  }

  async findSession(tokenHash: string): Promise<SessionRecord | null> {
    return this.findByKey((c) => c.sessions, tokenHash, sessionFromDoc);
  }

  // --- session keys and ended sessions (session-state.ts) -------------------

  async listSessionKeys(now: Date): Promise<SessionKeyRecord[]> {
    return this.run(() => this.sessionState.listSessionKeys(now));
  }

  async ensureFirstSessionKey(candidate: SessionKeyRecord): Promise<SessionKeyRecord> {
    return this.run(() => this.sessionState.ensureFirstSessionKey(candidate));
  }

  async addSessionKey(key: SessionKeyRecord, retireOthersAt: Date): Promise<void> {
    await this.run(() => this.sessionState.addSessionKey(key, retireOthersAt));
  }

  async endSession(ended: Omit<EndedSessionRecord, 'endedAt'>): Promise<boolean> {
    return this.run(() => this.sessionState.endSession(ended));
  }

  async listEndedSessions(since: Date, now: Date, limit: number): Promise<EndedSessionRecord[]> {
    return this.run(() => this.sessionState.listEndedSessions(since, now, limit));
  }

  async readSessionState(now: Date, endedSince: Date, endedLimit: number): Promise<SessionStateRead> {
    return this.run(() => this.sessionState.readSessionState(now, endedSince, endedLimit));
  }

  /** One aggregate: the session, then its client, member and API key by `_id` ($lookup). */
  async findSessionContext(tokenHash: string): Promise<SessionContext | null> {
    if (!isKey(tokenHash)) return null;
    const [found] = await this.run(() =>
      this.collections().sessions
        .aggregate<SessionDoc & { client: ClientDoc[]; member: MemberDoc[]; key: ApiKeyDoc[] }>([
          { $match: { _id: tokenHash } },
          { $lookup: { from: collectionNames.clients, localField: 'clientId', foreignField: '_id', as: 'client' } },
          { $lookup: { from: collectionNames.members, localField: 'correlationId', foreignField: '_id', as: 'member' } },
          { $lookup: { from: collectionNames.apiKeys, localField: 'keyId', foreignField: '_id', as: 'key' } },
        ])
        .toArray(),
    );
    if (!found) return null;
    const [client] = found.client;
    const [member] = found.member;
    const [key] = found.key;
    return {
      session: sessionFromDoc(found),
      client: client ? clientFromDoc(client) : null,
      member: member ? memberFromDoc(member) : null,
      key: key ? apiKeyFromDoc(key) : null,
    };
  }

  // --- voucher definitions ------------------------------------------------

  async listPublishedVoucherDefinitions(businessUnit: string, channel: string): Promise<VoucherDefinitionRecord[]> {
    if (!isKey(businessUnit) || !isKey(channel)) return [];
    const filter = {
      businessUnit,
      status: publishedStatus,
      // A scalar against an array field matches when the array contains it.
      $or: [{ usageChannels: channel }, { usageChannels: { $exists: false } }, { usageChannels: { $size: 0 } }],
    };
    const docs = await this.run(() =>
      this.collections().voucherDefinitions.find(filter).sort({ voucherDefinitionId: 1 }).toArray(),
    );
    return docs.map(voucherDefinitionFromDoc);
  }

  /** Bumped by every write of definitions, read at most once a second (definitions-version.ts). */
  voucherDefinitionsVersion(): number | Promise<number> {
    return this.definitionsVersion.get();
  }

  async upsertVoucherDefinitions(definitions: VoucherDefinitionRecord[]): Promise<void> {
    if (definitions.length === 0) return;
    await this.replaceAll(
      this.collections().voucherDefinitions,
      definitions.map((d) => [requireKey(d.voucherDefinitionId, 'voucherDefinitionId'), voucherDefinitionBody(d)]),
    );
    // After the write: a process that sees the new version lists the new definitions.
    await this.run(() => bumpDefinitionsVersion(this.connection.db));
    this.definitionsVersion.forget();
  }

  // --- catalogue and redemptions ------------------------------------------

  async findCatalogueItems(productCodes: string[]): Promise<CatalogueItemRecord[]> {
    const codes = [...new Set(productCodes.filter(isKey))];
    if (codes.length === 0) return [];
    const docs = await this.run(() => this.collections().catalogueItems.find({ _id: { $in: codes } }).toArray());
    return docs.map(catalogueItemFromDoc);
  }

  async upsertCatalogueItems(items: CatalogueItemRecord[]): Promise<void> {
    await this.replaceAll(this.collections().catalogueItems, items.map((i) => [requireKey(i.productCode, 'productCode'), catalogueItemBody(i)]));
  }

  async findRedemption(redemptionId: string): Promise<RedemptionRecord | null> {
    return this.findByKey((c) => c.redemptions, redemptionId, redemptionFromDoc);
  }

  async upsertRedemptions(redemptions: RedemptionRecord[]): Promise<void> {
    await this.replaceAll(
      this.collections().redemptions,
      redemptions.map((r) => [requireKey(r.redemptionId, 'redemptionId'), redemptionBody(r)]),
    );
  }

  // --- wallets (wallets/mongo-wallets.ts) ----------------------------------

  loadWallet(walletId: string): Promise<Wallet | null> {
    return this.wallets.loadWallet(walletId);
  }

  saveWallet(wallet: Wallet, expectedVersion: number): Promise<boolean> {
    return this.wallets.saveWallet(wallet, expectedVersion);
  }

  loadWalletSlice(walletId: string, key: ReservationKey, options?: { withMember?: string }): Promise<WalletSlice | null> {
    return this.wallets.loadWalletSlice(walletId, key, options);
  }

  saveReservationChange(change: ReservationChange, expectedVersion: number): Promise<boolean> {
    return this.wallets.saveReservationChange(change, expectedVersion);
  }

  // --- audit ---------------------------------------------------------------

  /** Oldest first; the wallet version orders entries with the same time. */
  async listAudit(reservationToken: string): Promise<AuditEntry[]> {
    if (!isKey(reservationToken)) return [];
    const docs = await this.run(() =>
      this.collections().audit.find({ reservationToken }).sort({ at: 1, walletVersion: 1 }).toArray(),
    );
    return docs.map(auditFromDoc);
  }

  // --- lifecycle -----------------------------------------------------------

  async ping(): Promise<void> {
    await this.connection.ping();
  }

  /** Stops the sweep and delivers what the last answers left (their outboxes) before the client closes. */
  async close(): Promise<void> {
    await this.outbox.close();
    await this.connection.close();
  }

  // --- helpers -------------------------------------------------------------

  /** Runs one driver call, turning "database unreachable" into StoreUnavailableError (see MongoConnection.run). */
  private run<T>(operation: () => Promise<T>): Promise<T> {
    return this.connection.run(operation);
  }

  /**
   * One document by its `_id`, as its record; null when there is none, or
   * when the id is no string (a filter value is never a query operator).
   */
  private async findByKey<D extends { _id: string }, R>(collection: (c: Collections) => Collection<D>, id: string, fromDoc: (doc: D) => R): Promise<R | null> {
    if (!isKey(id)) return null;
    // The casts: the driver's Filter<D> and WithId<D> cannot be resolved for a generic D.
    const doc = await this.run(() => collection(this.collections()).findOne({ _id: id } as Filter<D>));
    return doc ? fromDoc(doc as D) : null;
  }

  /**
   * Replace-or-insert by `_id`, in order: a key given twice ends with its last
   * record, as in the memory store. An empty list sends nothing (the driver
   * rejects an empty bulk write).
   */
  private async replaceAll<T extends { _id: string }>(
    collection: Collection<T>,
    entries: Array<[id: string, body: Body<T>]>,
  ): Promise<void> {
    if (entries.length === 0) return;
    // The cast: the driver's Filter<T> cannot be resolved for a generic T,
    // though every T here is a document keyed by a string `_id`.
    const operations = entries.map(
      ([id, body]) =>
        ({ replaceOne: { filter: { _id: id }, replacement: body, upsert: true } }) as AnyBulkWriteOperation<T>,
    );
    await this.run(() => collection.bulkWrite(operations, { ordered: true }));
  }
}
