import type { Collection, Db } from 'mongodb';
import type { StoreConnection } from './connection';
import type { ApiKeyDoc, CatalogueItemDoc, ClientDoc, MemberDoc, RedemptionDoc, SessionDoc, VoucherDefinitionDoc } from './documents';
import type { AuditDoc, ReservationDoc, WalletDoc } from './wallets/documents';

/*
 * The store's collections: their names, their typed handles on the current
 * client, and the one guard of every value that goes into their filters.
 */

/** Collection names, in one place for operators, migrations and tests. */
export const collectionNames = {
  clients: 'clients',
  apiKeys: 'apiKeys',
  members: 'members',
  sessions: 'sessions',
  catalogueItems: 'catalogueItems',
  redemptions: 'redemptions',
  voucherDefinitions: 'voucherDefinitions',
  wallets: 'wallets',
  reservations: 'reservations',
  audit: 'audit',
  /** The keys that seal session tokens, and the sessions their members ended (session-state.ts). */
  sessionKeys: 'sessionKeys',
  endedSessions: 'endedSessions',
  /** The rate limit's count per key and window (quota-claim.ts). */
  rateLimits: 'rateLimits',
  /** The data layout the database holds (layout.ts). */
  meta: 'meta',
} as const;

/**
 * Every value that goes into a filter passes through here. The port is typed,
 * but callers hand on values from requests: an object such as `{ $ne: "" }`
 * in a filter would turn an equality into an operator. Non-strings match
 * nothing.
 */
export const isKey = (value: unknown): value is string => typeof value === 'string';

/** `value` for a document's key, or a TypeError: a record to be written must hold strings where keys go. */
export function requireKey(value: unknown, what: string): string {
  if (!isKey(value)) throw new TypeError(`${what} must be a string`);
  return value;
}

/** The collections the store reads and writes, typed by their documents. */
export interface Collections {
  clients: Collection<ClientDoc>;
  apiKeys: Collection<ApiKeyDoc>;
  members: Collection<MemberDoc>;
  sessions: Collection<SessionDoc>;
  catalogueItems: Collection<CatalogueItemDoc>;
  redemptions: Collection<RedemptionDoc>;
  voucherDefinitions: Collection<VoucherDefinitionDoc>;
  wallets: Collection<WalletDoc>;
  reservations: Collection<ReservationDoc>;
  audit: Collection<AuditDoc>;
}

/** The collections of the connection's current client, made again when the watchdog replaces the client. */
export function currentCollections(connection: Pick<StoreConnection, 'db' | 'currentGeneration'>): () => Collections {
  let made: { generation: number; collections: Collections } | null = null;
  return () => {
    const generation = connection.currentGeneration;
    if (made?.generation !== generation) made = { generation, collections: collectionsOf(connection.db) };
    return made.collections;
  };
}

function collectionsOf(db: Db): Collections {
  return {
    clients: db.collection<ClientDoc>(collectionNames.clients),
    apiKeys: db.collection<ApiKeyDoc>(collectionNames.apiKeys),
    members: db.collection<MemberDoc>(collectionNames.members),
    sessions: db.collection<SessionDoc>(collectionNames.sessions),
    catalogueItems: db.collection<CatalogueItemDoc>(collectionNames.catalogueItems),
    redemptions: db.collection<RedemptionDoc>(collectionNames.redemptions),
    voucherDefinitions: db.collection<VoucherDefinitionDoc>(collectionNames.voucherDefinitions),
    wallets: db.collection<WalletDoc>(collectionNames.wallets),
    reservations: db.collection<ReservationDoc>(collectionNames.reservations),
    audit: db.collection<AuditDoc>(collectionNames.audit),
  };
}
