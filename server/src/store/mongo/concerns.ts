import { ReadPreference, type DbOptions, type MongoClient, type Db, type CollectionOptions } from 'mongodb';

/*
 * Write concerns and read preferences, set here and nowhere else.
 *
 * Every write of the store waits for a majority of the replica set
 * (`w: "majority"`): the wallet's compare-and-set, a new session, key
 * changes, the outbox's deliveries, loads and migrations. Once acknowledged
 * (once a partner has its 200 or 201), a failover cannot roll it back. On a
 * standalone server a majority is the server itself. Every read goes to the
 * primary, whatever the URI says (`readPreference=secondary...`): Operation
 * B reads the wallet it compares-and-sets, and a session started on one
 * process is read by another at once; a secondary could answer with what
 * was true before.
 *
 * The one exception is the rate limit's claims (`countWrites`).
 */

/** The database as the store uses it: majority writes, primary reads, whatever the URI's defaults. */
export const storeDbOptions: DbOptions = { writeConcern: { w: 'majority' }, readPreference: ReadPreference.primary };

/**
 * The rate limit's claims acknowledge on the primary alone (`w: 1`): a
 * claim lost in a failover lets the same tokens be claimed again, at most
 * one block per process over the limit in that one window, and a claim is
 * on the path of a request every block, where waiting for a majority would
 * cost more than the count is worth.
 */
export const countWrites: CollectionOptions = { writeConcern: { w: 1 }, readPreference: ReadPreference.primary };

export function storeDb(client: MongoClient, dbName: string): Db {
  return client.db(dbName, storeDbOptions);
}
