import { MongoClient, type Db } from 'mongodb';
import { hashSecret } from '../../server/src/domain/secrets';
import { dropTestDatabase, describeOnMongoDB, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';
import { collectionNames } from '../../server/src/store/mongo/collections';
import { currentLayout, LayoutMismatchError, readLayout, recordLayout } from '../../server/src/store/mongo/layout';
import { migrate } from '../../server/src/store/mongo/migrations/runner';
import { migratedKeyId } from '../../server/src/store/mongo/migrations/003-api-keys';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { startTestApp } from '../../server/src/test-support/app-harness';
import { layoutOneDatabase, layoutOneFacts } from './data-layout/layout-one';
import { layoutThreeDatabase } from './data-layout/layout-three';
import { createKeyService } from '../../server/src/features/keys/service';
import { loadFixture } from '../../server/src/features/load/load-fixture';
import { parseFixture } from '../../server/src/features/load/parse-fixture';
import { fixtureClient, fixtureMember } from '../../server/src/test-support/fixture-entries';

/*
 * The recorded data layout: a server starts only on the layout it knows,
 * and `migrate` brings a database written by an earlier server to it, in
 * place, with every point accounted for. MongoDB only (the embedded store
 * has no layout of its own).
 */

describeOnMongoDB('data layout and migrations', (uri) => {
  let client: MongoClient;
  let dbName: string;
  let db: Db;
  const connect = () => MongoStore.connect({ uri, dbName, watchdogIntervalMs: 0 });

  beforeAll(async () => {
    client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
  });
  afterAll(() => client.close());

  beforeEach(() => {
    dbName = uniqueDbName('layout');
    db = client.db(dbName);
  });
  afterEach(() => dropTestDatabase(uri, dbName));

  it('gives an empty database the current layout', async () => {
    const store = await connect();
    await store.close();
    expect(await readLayout(db)).toEqual({ version: currentLayout, recorded: true, migrating: null });
  });

  it.each([
    ['an unrecorded layout 1 (inline reservations)', async () => layoutOneDatabase(db), /holds data layout 1; this server needs layout 5\. Run `loyalty-admin migrate`/],
    ['a recorded layout 2', async () => recordLayout(db, 2), /holds data layout 2; this server needs layout 5/],
    ['a recorded layout 3', async () => recordLayout(db, 3), /holds data layout 3; this server needs layout 5/],
    ['a recorded layout 4', async () => recordLayout(db, 4), /holds data layout 4; this server needs layout 5/],
    ['a newer layout', async () => recordLayout(db, currentLayout + 1), /holds data layout 6; this server knows layout 5, an older one/],
  ])('refuses to start on %s, naming both versions and what to do', async (_case, prepare, message) => {
    await prepare();
    const refused = connect();
    await expect(refused).rejects.toThrow(LayoutMismatchError);
    await expect(refused).rejects.toThrow(message);
  });

  it('migrates a layout 1 database in place, idempotently, and then serves it with every point accounted for', async () => {
    await layoutOneDatabase(db);
    const first = await migrate(db);
    expect(first.steps.map((s) => s.to)).toEqual([2, 3, 4, 5]);
    expect(await readLayout(db)).toEqual({ version: 5, recorded: true, migrating: null });
    const second = await migrate(db);
    expect(second).toEqual({ from: 5, to: 5, steps: [] });

    // The current layout on disk: no inline reservations, totals, a key per client, sessions with their key.
    expect(await db.collection(collectionNames.wallets).countDocuments({ reservations: { $exists: true } })).toBe(0);
    expect(await db.collection(collectionNames.wallets).countDocuments({ totals: { $exists: false } })).toBe(0);
    expect(await db.collection(collectionNames.reservations).countDocuments()).toBe(layoutOneFacts.reservations);
    expect(await db.collection(collectionNames.clients).countDocuments({ apiKeyHash: { $exists: true } })).toBe(0);
    expect(await db.collection(collectionNames.apiKeys).findOne({ _id: migratedKeyId('partner-app') as never })).toMatchObject({
      clientId: 'partner-app',
      kind: 'secret',
      origins: [],
      digest: hashSecret(layoutOneFacts.apiKey),
      revokedAt: null,
    });
    expect(await db.collection(collectionNames.sessions).countDocuments({ keyId: { $exists: false } })).toBe(0);

    // Served by this release: the old key, the old session, a lowering of a household reservation.
    const server = await startTestApp({ fixture: {}, startAt: Date.parse(layoutOneFacts.now), store: await connect() });
    try {
      const api = server.api;
      const lowered = await api.updateReservation(layoutOneFacts.apiKey, layoutOneFacts.sessionToken, 'm-a', 'rt-household', { reservationAmount: 200 });
      expect(lowered.status).toBe(200);
      // 500 held by m-a (300) and m-b (200): 300 returned, 180 to m-a and 120 to m-b.
      expect(lowered.body).toMatchObject({ availablePointBalance: 1000 - 300 - 100 + 180, household: { pointsBalance: 1500, availablePointsBalance: 1500 - 200 - 100 } });
      await server.settled();
      const household = await server.store.loadWallet('household:hh-1');
      const held = (household?.reservations ?? []).reduce((sum, r) => sum + r.reservationAmount, 0);
      expect({ balances: household?.balances, held }).toEqual({ balances: layoutOneFacts.householdBalances, held: 200 + 100 });
      const solo = await server.store.loadWallet('member:m-solo');
      expect(solo?.reservations.map((r) => [r.reservationToken, r.reservationAmount])).toEqual([['rt-solo', 400]]);
    } finally {
      await server.close();
    }
  });

  it('migrates a layout 3 database whose last changes were never copied out: each delivered once, then served', async () => {
    const facts = await layoutThreeDatabase(db);
    const report = await migrate(db);
    expect(report).toMatchObject({ from: 3, to: 5, steps: [{ to: 4 }, { to: 5 }] });
    expect(await migrate(db)).toEqual({ from: 5, to: 5, steps: [] });
    const wallets = db.collection(collectionNames.wallets);
    expect(await wallets.countDocuments({ $or: [{ pending: { $exists: true } }, { pendingAudit: { $exists: true } }] })).toBe(0);
    // The reservation write that waited in `pending` is in its document; the entry in the trail, once.
    expect(await db.collection(collectionNames.reservations).findOne({ _id: facts.reservationDocId as never })).toMatchObject({ walletVersion: 5, reservationAmount: 250 });
    expect(await db.collection(collectionNames.audit).countDocuments({ _id: facts.auditId as never })).toBe(1);
    const store = await connect();
    try {
      const slice = await store.loadWalletSlice(facts.walletId, facts.key);
      expect(slice).toMatchObject({ version: 5, reservation: { reservationAmount: 250 } });
    } finally {
      await store.close();
    }
  });

  it('migrates a layout 4 database: every key a secret key, which serves as before; then a publishable key of the same client works beside it', async () => {
    // A layout 4 database: what this release writes, less the kind of each key.
    const written = await connect();
    await loadFixture(written, parseFixture({ clients: [fixtureClient('partner-app', 'pk_layout_four_0001', { defaultBusinessUnit: 'LCL' })], members: [fixtureMember('m-alice', 100)] }), new Date());
    await written.close();
    await db.collection(collectionNames.apiKeys).updateMany({}, { $unset: { kind: '', origins: '' } });
    await recordLayout(db, 4);
    await expect(connect()).rejects.toThrow(/holds data layout 4; this server needs layout 5/);

    expect(await migrate(db)).toMatchObject({ from: 4, to: 5, steps: [{ to: 5, name: 'secret and publishable API keys' }] });
    expect(await migrate(db)).toEqual({ from: 5, to: 5, steps: [] });
    expect(await db.collection(collectionNames.apiKeys).find({}, { projection: { _id: 0, kind: 1, origins: 1 } }).toArray()).toEqual([{ kind: 'secret', origins: [] }]);

    const server = await startTestApp({ fixture: {}, store: await connect() });
    try {
      const token = await server.api.startSession('pk_layout_four_0001', 'm-alice');
      expect((await server.api.listVouchers('pk_layout_four_0001', token, 'm-alice')).status).toBe(200);
      const page = await createKeyService({ store: server.store, clock: server.now }).create('partner-app', { kind: 'publishable', origins: ['https://app.example.com'] });
      const fromPage = await server.send('GET', '/client/users/m-alice/voucher-definitions', { apiKey: page.apiKey, bearer: token, headers: { origin: 'https://app.example.com' } });
      expect(fromPage.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('resumes a migration that stopped half-way; no server starts in between', async () => {
    await layoutOneDatabase(db);
    let seen = 0;
    const crash = migrate(db, (_step, done) => {
      if (done > 0 && ++seen === 1) throw new Error('the operator pressed Ctrl+C');
    });
    await expect(crash).rejects.toThrow('Ctrl+C');
    expect(await readLayout(db)).toMatchObject({ migrating: { to: 2 } });
    await expect(connect()).rejects.toThrow(/being migrated to data layout 2.*Run `loyalty-admin migrate` to finish it/s);
    const resumed = await migrate(db);
    expect(resumed.steps.map((s) => s.to)).toEqual([2, 3, 4, 5]);
    expect(await db.collection(collectionNames.reservations).countDocuments()).toBe(layoutOneFacts.reservations);
    const store = await connect();
    await store.close();
  });
});
