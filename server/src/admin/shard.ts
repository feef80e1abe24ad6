import type { Db, Document } from 'mongodb';
import type { MongoConfig } from '../config';
import { shardPlan, type CollectionPlan } from '../store/mongo/shard-plan';
import { withDatabase } from './database';
import { AdminError, exitCodes } from './exit-codes';
import type { Output } from './output';

/** What `shard` did (or would do) to one collection. */
type Outcome = 'sharded' | 'stays unsharded';

/**
 * `shard`: prints the shard plan (shard-plan.ts); with `apply`, runs it on a
 * `mongos`: enables sharding of the database, creates each shard key's
 * index and shards each collection of the plan. Idempotent (sharding a
 * collection again on the same key is a no-op). On a server that is not a
 * mongos it changes nothing and stops with exit code 2.
 */
export async function runShard(mongo: MongoConfig | null, apply: boolean, out: Output): Promise<void> {
  if (!apply) {
    printPlan(mongo?.dbName ?? null, out);
    return;
  }
  if (!mongo) throw new AdminError('shard --apply works on a sharded cluster: set MONGODB_URI to a mongos (and MONGODB_DB)', exitCodes.usage);
  const outcomes = await withDatabase(mongo, async (db) => {
    await requireMongos(db);
    return applyPlan(db);
  });
  out.result({ database: mongo.dbName, applied: true, collections: outcomes }, [
    `Sharding of ${mongo.dbName} applied:`,
    ...outcomes.map((c) => `  ${c.collection.padEnd(20)} ${c.outcome}${c.shardKey ? ` on ${JSON.stringify(c.shardKey)}` : ''}`),
  ]);
}

function printPlan(dbName: string | null, out: Output): void {
  const collections = shardPlan.map((plan) => ({ ...plan, sharded: plan.shardKey !== null }));
  out.result({ database: dbName, applied: false, collections }, [
    `Shard plan${dbName ? ` of ${dbName}` : ''} (apply it on a mongos: loyalty-admin shard --apply):`,
    ...shardPlan.map(
      (plan) =>
        `  ${plan.collection.padEnd(20)} ${plan.shardKey ? `shard key ${JSON.stringify(plan.shardKey)}` : 'unsharded'}` +
        `${plan.uniqueIndexes.length > 0 ? `, unique ${plan.uniqueIndexes.map((u) => JSON.stringify(u)).join(' ')}` : ''}: ${plan.why}`,
    ),
  ]);
}

/** A mongos answers `hello` with `msg: "isdbgrid"`; anything else gets nothing done. */
async function requireMongos(db: Db): Promise<void> {
  const hello: Document = await db.admin().command({ hello: 1 });
  if (hello.msg === 'isdbgrid') return;
  const what = hello.setName ? `a member of replica set ${String(hello.setName)}` : 'a standalone server';
  throw new AdminError(
    `MONGODB_URI names ${what}, not a mongos: sharding is applied through the mongos of a sharded cluster. Nothing was changed. (Without --apply, shard prints the plan.)`,
    exitCodes.usage,
  );
}

async function applyPlan(db: Db): Promise<Array<{ collection: string; outcome: Outcome; shardKey: CollectionPlan['shardKey'] }>> {
  // Needed before MongoDB 6.0, a no-op since.
  await db.admin().command({ enableSharding: db.databaseName });
  const outcomes = [];
  for (const plan of shardPlan) {
    if (!plan.shardKey) {
      outcomes.push({ collection: plan.collection, outcome: 'stays unsharded' as const, shardKey: null });
      continue;
    }
    // The shard key's index first: a collection with documents can only be sharded on an existing one.
    await db.collection(plan.collection).createIndex(plan.shardKey);
    await db.admin().command({ shardCollection: `${db.databaseName}.${plan.collection}`, key: plan.shardKey });
    outcomes.push({ collection: plan.collection, outcome: 'sharded' as const, shardKey: plan.shardKey });
  }
  return outcomes;
}
