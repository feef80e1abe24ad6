import path from 'node:path';
import { MongoClient, type CommandStartedEvent, type Document } from 'mongodb';
import type { AuditEntry, Wallet } from '../../domain/model';
import { hashSecret } from '../../domain/secrets';
import { totalsOf } from '../../domain/wallet-totals';
import {
  apiKeyRecord,
  auditEntry,
  catalogueItemRecord,
  clientRecord,
  definitionRecord,
  memberRecord,
  redemptionRecord,
  reservationRecord,
  sessionRecord,
  wallet,
} from '../test-support/records';
import { fixedConnection } from './connection';
import { MongoStore } from './mongo-store';
import { explainMissing, testMongoSource, stageNames, uniqueDbName } from '../test-support/mongo-test-server';

/*
 * Every query shape of the hot paths (Operations A and B and session start),
 * as the adapter really sends it: the commands are captured from the driver
 * while the adapter serves each call, then each one is `explain`ed on the
 * server. A collection scan anywhere in a winning plan fails the test, and
 * each lookup may examine only the documents it returns (an index answers
 * it, whatever else the collection holds).
 *
 * Runs when MONGODB_URI names a MongoDB that explains plans; skipped with the
 * reason otherwise (none, or one without `explain`, as mongo-wire).
 */

const source = testMongoSource();
const skipReason = explainMissing(source);
const dbName = uniqueDbName(path.basename(__filename, '.test.ts'));

/** Commands that read or update by a filter (inserts need no plan). */
const queryCommands = new Set(['find', 'update', 'delete', 'findAndModify', 'aggregate', 'count', 'distinct']);

/** Fields the driver adds to a command for the session, cluster and transport; explain takes the rest. */
const transportFields = new Set(['lsid', 'txnNumber', '$clusterTime', '$db', '$readPreference', 'apiVersion', 'apiStrict', 'apiDeprecationErrors', 'readConcern', 'writeConcern', 'autocommit', 'startTransaction']);

if (skipReason !== null) {
  it.skip(`MongoStore query plans: skipped, ${skipReason}`, () => undefined);
} else {
  describe('MongoStore query plans of the hot paths', () => {
    let client: MongoClient;
    let store: MongoStore;
    const commands: CommandStartedEvent[] = [];

    beforeAll(async () => {
      if (source.kind === 'none') throw new Error('no MongoDB');
      // A client that reports every command it sends, under the store.
      client = await new MongoClient(source.uri, { monitorCommands: true, ignoreUndefined: true, serverSelectionTimeoutMS: 10_000 }).connect();
      await client.db(dbName).dropDatabase();
      store = MongoStore.over(fixedConnection(client, client.db(dbName)));
      await store.ensureIndexes();
      await seed(store);
      // A first whole save to version 2 (the rows below save against it).
      await store.saveWallet(sampleWallet('member:m-007'), 1);
      client.on('commandStarted', (event) => commands.push(event));
    }, 120_000);

    afterAll(async () => {
      await client?.db(dbName).dropDatabase();
      await client?.close();
    }, 60_000);

    /** Runs `call`; returns how many records it gave back (1 for a single record or a write) and the query commands it sent. */
    async function commandsOf(call: () => Promise<unknown>): Promise<{ returned: number; sent: CommandStartedEvent[] }> {
      commands.length = 0;
      const result = await call();
      return { returned: Array.isArray(result) ? result.length : 1, sent: commands.filter((event) => queryCommands.has(event.commandName)) };
    }

    /** Explains one captured command on the server, as it was sent. */
    async function explain(event: CommandStartedEvent): Promise<Document> {
      const command: Document = {};
      for (const [key, value] of Object.entries(event.command)) if (!transportFields.has(key)) command[key] = value;
      return client.db(dbName).command({ explain: command, verbosity: 'executionStats' });
    }

    const wallet = sampleWallet('member:m-007');

    const key = { clientId: 'client-000', correlationId: 'm-007', reservationToken: 'rt-m-007' };
    const lowered = { ...wallet.reservations[0]!, reservationAmount: 90, contributions: [{ correlationId: 'm-007', points: 90 }] };

    it.each<[string, (s: MongoStore) => Promise<unknown>]>([
      ['API key by digest, with its client', (s) => s.findApiKey(hashSecret('key-7'))],
      ["a client's API keys", (s) => s.listApiKeys('client-007')],
      ['member by correlation id', (s) => s.findMember('m-007')],
      ['session by token hash', (s) => s.findSession('token-hash-7')],
      ['session with its client, member and key (Operations A and B)', (s) => s.findSessionContext('token-hash-7')],
      ['wallet slice: the wallet and one reservation', (s) => s.loadWalletSlice('member:m-007', key)],
      ['wallet slice compare-and-set', (s) => s.saveReservationChange({ walletId: 'member:m-007', reservation: lowered, totals: totalsOf([lowered]), audit: null }, 2)],
      ['rate limit claim of one key', (s) => s.claimQuota({ key: 'client-007', window: { start: 0, end: 60_000 }, want: 20, unreported: 0 })],
      ['whole wallet by id', (s) => s.loadWallet('member:m-007')],
      ['whole wallet compare-and-set, its reservations delivered', (s) => s.saveWallet(wallet, 3)],
      ['catalogue items by product codes', (s) => s.findCatalogueItems(['p-003', 'p-011', 'p-999'])],
      ['redemption by id', (s) => s.findRedemption('rd-007')],
      // As many records as the batch read: its wallets are what the index must single out.
      ['outbox sweep: wallets whose outbox is older than its grace', async (s) => {
        const report = await s.outbox.start({}, { intervalMs: 3_600_000, graceMs: 0, batchSize: 10, maxBatches: 1 }).runOnce();
        return new Array(report.cleared + report.failed);
      }],
      ['voucher listing of one business unit', (s) => s.listPublishedVoucherDefinitions('BU-1', 'CUX')],
    ])('%s: an index answers it, no collection scan', async (_shape, call) => {
      const { returned, sent } = await commandsOf(() => call(store));
      expect(sent.length).toBeGreaterThan(0);
      for (const event of sent) {
        const plan = await explain(event);
        expect(planProblems(plan)).toEqual([]);
        // The index singles out what the call returns (or writes): nothing else is read.
        const examined: unknown = plan.executionStats?.totalDocsExamined;
        if (typeof examined === 'number') expect(examined).toBeLessThanOrEqual(Math.max(1, returned));
      }
    });
  });
}

/**
 * What is wrong with an explained plan: no winning plan at all, a collection
 * scan in one (a find's, or an aggregate's, at any depth), a $lookup that
 * scanned its collection, or a join that loops over the foreign collection.
 */
function planProblems(explained: Document): string[] {
  const problems: string[] = [];
  const winning: unknown[] = [];
  const visit = (value: unknown, at: string): void => {
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      if (key === 'winningPlan') winning.push(child);
      if (key === 'collectionScans' && typeof child === 'number' && child > 0) problems.push(`${at}.collectionScans = ${child}`);
      if (key === 'strategy' && child === 'NestedLoopJoin') problems.push(`${at}: a nested loop join`);
      visit(child, `${at}.${key}`);
    }
  };
  visit(explained, 'explain');
  if (winning.length === 0) problems.push('no winning plan');
  for (const plan of winning) if (stageNames(plan).includes('COLLSCAN')) problems.push(`a collection scan: ${JSON.stringify(plan).slice(0, 300)}`);
  return problems;
}

/**
 * Enough of every collection that a scan would show: 40 clients, members,
 * sessions, wallets, catalogue items, redemptions, 200 definitions over 5
 * business units and 3 statuses, and audit entries.
 */
async function seed(store: MongoStore): Promise<void> {
  const n = 40;
  const ids = Array.from({ length: n }, (_, i) => String(i).padStart(3, '0'));
  await store.upsertClients(ids.map((id) => clientRecord(`client-${id}`, { enabledBusinessUnits: ['BU-1'], defaultBusinessUnit: 'BU-1' })));
  await store.upsertApiKeys(ids.map((id, i) => apiKeyRecord(`key_${id}`, `client-${id}`, { digest: hashSecret(`key-${i}`), createdAt: new Date() })));
  await store.upsertMembers(ids.map((id) => memberRecord(`m-${id}`, { privileges: [] })));
  for (const [i, id] of ids.entries()) {
    await store.insertSession(
      sessionRecord(`token-hash-${i}`, {
        sessionId: `00000000-0000-4000-8000-000000000${id}`,
        clientId: `client-${id}`,
        keyId: `key_${id}`,
        correlationId: `m-${id}`,
        identifierType: 'CARD_NUMBER',
      }),
    );
    await store.saveWallet({ ...sampleWallet(`member:m-${id}`), audit: sampleAudit(`member:m-${id}`, 1) }, 0);
  }
  await store.outbox.settle();
  await store.upsertCatalogueItems(
    ids.map((id) => catalogueItemRecord(`p-${id}`, { catalogueItemId: `ci-${id}`, catalogueItemName: `Item ${id}`, pointsAmount: 100, messages: {} })),
  );
  await store.upsertRedemptions(ids.map((id) => redemptionRecord(`rd-${id}`, `m-${id}`, { redemptionName: `Redemption ${id}` })));
  const statuses = ['PUBLISHED', 'DRAFT', 'RETIRED'];
  const definitions = Array.from({ length: 200 }, (_, i) =>
    definitionRecord(`vd-${String(i).padStart(4, '0')}`, {
      adminId: `ADM-${i}`,
      businessUnit: `BU-${i % 5}`,
      status: statuses[Math.floor(i / 5) % 3]!,
      ...(i % 2 === 0 ? { usageChannels: ['CUX'] } : {}),
      definitionName: `Definition ${i}`,
      creative: {},
    }),
  );
  await store.upsertVoucherDefinitions(definitions);
}

/** The wallet of one member, holding one reservation of client-000 that expires in 15 minutes. */
function sampleWallet(walletId: string): Wallet {
  const correlationId = walletId.slice('member:'.length);
  const reservation = reservationRecord(`rt-${correlationId}`, correlationId, { [correlationId]: 100 }, {
    clientId: 'client-000',
    expiresAt: new Date(Date.now() + 900_000),
    createdAt: new Date(),
  });
  return wallet(walletId, { [correlationId]: 10_000 }, [reservation]);
}

/** The entry of the change that lowered the sample reservation from 101 to 100, as `walletVersion`. */
function sampleAudit(walletId: string, walletVersion: number): AuditEntry {
  const correlationId = walletId.slice('member:'.length);
  const expiresAt = new Date(Date.now() + 900_000);
  const entry = auditEntry(`rt-${correlationId}`, new Date().toISOString(), 100, {
    walletId,
    walletVersion,
    clientId: 'client-000',
    sessionId: '00000000-0000-4000-8000-000000000000',
    correlationId,
  });
  return { ...entry, before: { ...entry.before!, expiresAt }, after: { ...entry.after, expiresAt } };
}
