import { collectionNames } from './collections';

/*
 * How the database is sharded on a sharded cluster: which collections, on
 * what key, and why. Every command of the request path (Start Session,
 * Operations A and B, the outbox and its sweep) filters on its collection's
 * whole shard key, so that `mongos` sends it to the shards that hold the
 * answer and no request goes to every shard (test/integration/shard-keys.test.ts
 * checks each command). `loyalty-admin shard` prints this plan and applies it.
 */

export type ShardKey = Record<string, 1 | 'hashed'>;

export interface CollectionPlan {
  collection: string;
  /** Null: the collection stays on the database's primary shard. */
  shardKey: ShardKey | null;
  /** Its unique indexes besides `_id` (on a sharded collection they must start with the shard key). */
  uniqueIndexes: Array<Record<string, 1 | -1>>;
  why: string;
}

export const shardPlan: readonly CollectionPlan[] = [
  { collection: collectionNames.clients, shardKey: null, uniqueIndexes: [], why: 'small: one document per partner app' },
  {
    collection: collectionNames.apiKeys,
    shardKey: null,
    uniqueIndexes: [{ digest: 1 }],
    why: 'small (at most 10 live keys per client); its unique digest index needs one shard',
  },
  {
    collection: collectionNames.members,
    shardKey: { _id: 'hashed' },
    uniqueIndexes: [],
    why: 'tens of millions; found by correlation id (_id); hashed, as ids may be issued in order',
  },
  {
    collection: collectionNames.sessions,
    shardKey: { _id: 'hashed' },
    uniqueIndexes: [],
    why: 'the sessions of the release before sealed tokens, until they expire; found by token digest (_id); hashed spreads them',
  },
  { collection: collectionNames.sessionKeys, shardKey: null, uniqueIndexes: [], why: 'a few documents: the keys that seal session tokens' },
  {
    collection: collectionNames.endedSessions,
    shardKey: null,
    uniqueIndexes: [],
    why: 'small (at most MAX_ENDED_SESSIONS, each gone once its token expires); every process reads what ended since its last read, a range on one shard',
  },
  { collection: collectionNames.catalogueItems, shardKey: null, uniqueIndexes: [], why: 'small reference data' },
  { collection: collectionNames.redemptions, shardKey: null, uniqueIndexes: [], why: 'small reference data' },
  { collection: collectionNames.voucherDefinitions, shardKey: null, uniqueIndexes: [], why: 'small reference data; Operation A lists it from memory' },
  {
    collection: collectionNames.wallets,
    shardKey: { bucket: 1, _id: 1 },
    uniqueIndexes: [],
    why: 'one per member or household; found by bucket and id; the bucket (a hash of the id) spreads them and lets the outbox sweep target one bucket at a time',
  },
  {
    collection: collectionNames.reservations,
    shardKey: { _id: 1 },
    uniqueIndexes: [],
    why: "the largest; found by _id, which starts with its wallet's id, so a wallet's reservations are one range (the whole-wallet read); ids follow wallet ids, not time",
  },
  {
    collection: collectionNames.audit,
    shardKey: { _id: 'hashed' },
    uniqueIndexes: [],
    why: 'append-only, one entry per change; written and looked up by _id (wallet and version); hashed spreads the inserts',
  },
  {
    collection: collectionNames.rateLimits,
    shardKey: null,
    uniqueIndexes: [{ key: 1 }],
    why: 'counters: one small document per key and minute, removed after; its unique key index needs one shard',
  },
  { collection: collectionNames.meta, shardKey: null, uniqueIndexes: [], why: 'a few documents: the data layout, the voucher definitions version' },
];

/** The plan of one collection (every collection of the store has one). */
export function planOf(collection: string): CollectionPlan | undefined {
  return shardPlan.find((plan) => plan.collection === collection);
}
