/**
 * How fast `loyalty-admin migrate` brings a database of data layout 1 to the
 * current layout, and a check that it kept every point. Writes a layout 1
 * database with the driver alone on MONGODB_URI (a database of its own,
 * dropped after): WALLETS wallets (default 5,000) of 4 inline reservations
 * each, one client with its key digest per 10 wallets, and a session per
 * wallet; then migrates it, timing each step, and compares every wallet
 * (balances, reservations, totals) with what was written. Exits 1 on any
 * difference.
 *
 *   MONGODB_URI=... npm run test:migration-speed
 */
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { systemClock } from '../../server/src/domain/clock';
import { hashSecret } from '../../server/src/domain/secrets';
import { layoutOneClient } from '../integration/data-layout/layout-one';
import { totalsOf } from '../../server/src/domain/wallet-totals';
import { collectionNames } from '../../server/src/store/mongo/collections';
import { ensureIndexes } from '../../server/src/store/mongo/indexes';
import { migrate } from '../../server/src/store/mongo/migrations/runner';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { dropTestDatabase } from '../../server/src/store/test-support/mongo-test-server';

const uri = process.env.MONGODB_URI?.trim() ?? '';
const wallets = Number(process.env.WALLETS ?? 5000);
const perWallet = 4;

interface Written {
  balance: number;
  reservations: Array<{ token: string; points: number }>;
}

async function main(): Promise<void> {
  if (!uri) throw new Error('MONGODB_URI is required');
  const dbName = `migration_speed_${process.pid}_${randomBytes(3).toString('hex')}`;
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
  try {
    const db = client.db(dbName);
    const written = await writeLayoutOne(db);
    const started = performance.now();
    // As `loyalty-admin migrate` does: the indexes first.
    await ensureIndexes(db);
    const report = await migrate(db, () => undefined, systemClock);
    const seconds = (performance.now() - started) / 1000;
    for (const step of report.steps) console.log(`layout ${step.to} (${step.name}): ${step.seconds.toFixed(1)} s`);
    console.log(`migrated ${wallets.toLocaleString('en-US')} wallets (${(wallets * perWallet).toLocaleString('en-US')} reservations) in ${seconds.toFixed(1)} s: ${Math.round(wallets / seconds).toLocaleString('en-US')} wallets/s`);
    const problems = await compare(dbName, written);
    if (problems.length > 0) {
      console.error(`FAIL: ${problems.length} wallet(s) differ, first: ${problems.slice(0, 3).join('; ')}`);
      process.exitCode = 1;
    } else console.log(`PASS: every wallet kept its balance and reservations, its totals match them`);
  } finally {
    await client.close();
    await dropTestDatabase(uri, dbName);
  }
}

async function writeLayoutOne(db: import('mongodb').Db): Promise<Map<string, Written>> {
  const written = new Map<string, Written>();
  const clients = Math.max(1, Math.floor(wallets / 10));
  await db.collection(collectionNames.clients).createIndex({ apiKeyHash: 1 }, { unique: true });
  const clientDocs = Array.from({ length: clients }, (_, i) => layoutOneClient(`client-${i}`, `pk_migration_${i}`));
  await db.collection(collectionNames.clients).insertMany(clientDocs as never[]);
  const expiresAt = new Date(Date.now() + 3_600_000);
  for (let from = 0; from < wallets; from += 1000) {
    const walletDocs = [];
    const sessions = [];
    for (let w = from; w < Math.min(wallets, from + 1000); w++) {
      const member = `m-${w}`;
      const reservations = Array.from({ length: perWallet }, (_, r) => ({ token: `rt-${w}-${r}`, points: 10 + r }));
      written.set(`member:${member}`, { balance: 1000, reservations });
      walletDocs.push({
        _id: `member:${member}`,
        version: 1,
        balances: [{ correlationId: member, pointBalance: 1000 }],
        reservations: reservations.map((r) => ({
          reservationToken: r.token,
          clientId: `client-${w % clients}`,
          correlationId: member,
          identifierType: 'CARD_NUMBER',
          reservationAmount: r.points,
          contributions: [{ correlationId: member, points: r.points }],
          expiresAt,
          createdAt: new Date(),
          excludedFromCap: false,
        })),
      });
      sessions.push({ _id: hashSecret(`st-${w}`), sessionId: `s-${w}`, clientId: `client-${w % clients}`, correlationId: member, identifierType: 'CARD_NUMBER', expiresAt });
    }
    await db.collection(collectionNames.wallets).insertMany(walletDocs as never[]);
    await db.collection(collectionNames.sessions).insertMany(sessions as never[]);
  }
  return written;
}

async function compare(dbName: string, written: Map<string, Written>): Promise<string[]> {
  const store = await MongoStore.connect({ uri, dbName, watchdogIntervalMs: 0 });
  const problems: string[] = [];
  try {
    for (const [walletId, expected] of written) {
      const wallet = await store.loadWallet(walletId);
      const slice = await store.loadWalletSlice(walletId, { clientId: 'none', correlationId: 'none', reservationToken: 'none' });
      const got = (wallet?.reservations ?? []).map((r) => ({ token: r.reservationToken, points: r.reservationAmount })).sort((a, b) => a.token.localeCompare(b.token));
      const balance = wallet?.balances[0]?.pointBalance;
      const held = (t: { held: Array<{ correlationId: string; points: number }> }) => JSON.stringify([...t.held].sort((a, b) => a.correlationId.localeCompare(b.correlationId)));
      const totalsMatch = wallet && slice && slice.totals.count === wallet.reservations.length && held(slice.totals) === held(totalsOf(wallet.reservations));
      if (balance !== expected.balance || JSON.stringify(got) !== JSON.stringify(expected.reservations) || !totalsMatch) problems.push(walletId);
    }
  } finally {
    await store.close();
  }
  return problems;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
