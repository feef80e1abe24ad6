import { MongoClient } from 'mongodb';
import { auditEntryIdPrefix } from '../../server/src/domain/model';
import { totalsOf, withChange } from '../../server/src/domain/wallet-totals';
import { collectionNames } from '../../server/src/store/mongo/collections';
import type { WalletDoc } from '../../server/src/store/mongo/wallets/documents';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { dropTestDatabase, testMongoSource, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';
import { auditEntry, reservationRecord, wallet } from '../../server/src/store/test-support/records';
import { eventually } from '../../server/src/test-support/time';
import { singleMongoHost, startTcpProxy, throughProxy, type TcpProxy } from '../support/tcp-proxy';

/*
 * The outbox of a wallet change on MongoDB (server/src/store/mongo/wallets/outbox.ts):
 * a process saves a change, answers, and then its connection to the
 * database is cut before it can deliver the change's writes elsewhere (the
 * reservation document and the audit entry), as when a process is killed
 * between its answer and that delivery. Another process, which shares
 * nothing with it but the database, finds the outbox undelivered and
 * delivers it, once: when it reads the wallet to change it, or in its sweep
 * when nobody changes the wallet again.
 */

jest.setTimeout(60_000);

const source = testMongoSource();
const target = source.kind === 'uri' ? singleMongoHost(source.uri) : null;
const skip = source.kind === 'none' ? source.reason : target ? null : 'MONGODB_URI names several hosts; the cutting proxy takes one';

(skip === null ? describe : describe.skip)(`the outbox of a wallet change${skip ? `: skipped, ${skip}` : ''}`, () => {
  const uri = (source as { uri: string }).uri;
  const walletId = 'member:m-outbox';
  const key = { clientId: 'partner-app', correlationId: 'm-outbox', reservationToken: 'rt-outbox' };
  let dbName: string;
  let proxy: TcpProxy;
  /** The process whose connection is cut right after its save. */
  let killed: MongoStore;
  /** Another process on the same database. */
  let other: MongoStore;
  let raw: MongoClient;

  const reservation = (amount: number) => reservationRecord(key.reservationToken, key.correlationId, { 'm-outbox': amount }, { expiresAt: new Date(Date.now() + 3_600_000) });
  /** The entry of the change to `amount` as wallet version `version`. */
  const entry = (version: number, amount: number) =>
    auditEntry(key.reservationToken, new Date().toISOString(), amount, { correlationId: key.correlationId, walletVersion: version, sessionId: 'sid-outbox' });
  const walletDoc = () => raw.db(dbName).collection<WalletDoc>(collectionNames.wallets).findOne({ _id: walletId });
  const storedAmount = async () =>
    (await raw.db(dbName).collection(collectionNames.reservations).findOne({ walletId, removedAt: { $exists: false } }))?.reservationAmount;

  beforeEach(async () => {
    dbName = uniqueDbName('outbox');
    raw = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
    proxy = await startTcpProxy(target!);
    other = await MongoStore.connect({ uri, dbName, serverSelectionTimeoutMS: 10_000 });
    killed = await MongoStore.connect({ uri: throughProxy(uri, proxy), dbName, serverSelectionTimeoutMS: 300, socketTimeoutMS: 1000 });
    const start = wallet(walletId, { 'm-outbox': 1000 }, [reservation(500)]);
    expect(await other.saveWallet(start, 0)).toBe(true);
  });

  afterEach(async () => {
    await proxy.restore();
    await killed.close();
    await other.close();
    await proxy.close();
    await raw.close();
    await dropTestDatabase(uri, dbName);
  });

  /** `killed` lowers the reservation to `amount` from version `from` and loses its connection before delivering. */
  async function lowerThenCut(from: number, amount: number): Promise<void> {
    const slice = await killed.loadWalletSlice(walletId, key);
    expect(slice?.version).toBe(from);
    const change = { walletId, reservation: reservation(amount), totals: withChange(slice!.totals, slice!.reservation, reservation(amount)), audit: entry(from + 1, amount) };
    expect(await killed.saveReservationChange(change, from)).toBe(true);
    // Its delivery starts after the answer (the next turn of the event loop): cut before that.
    await proxy.cut();
    await killed.outbox.settle();
  }

  /** Until the store answers again through the restored proxy (its pool's cut connections fail first), as /readyz waits. */
  async function readyAgain(store: MongoStore): Promise<void> {
    await eventually('the store to answer through the restored proxy', () => store.ping().then(() => true, () => false), { timeoutMs: 15_000, intervalMs: 20 });
  }

  it('a delivery cut off after the answer: the next process to change the wallet delivers it first, once', async () => {
    await lowerThenCut(1, 400);
    expect(await other.listAudit('rt-outbox')).toEqual([]);
    expect(await storedAmount()).toBe(500);

    const slice = await other.loadWalletSlice(walletId, key);
    // The undelivered change is the truth, and it was delivered on the way.
    expect(slice?.reservation?.reservationAmount).toBe(400);
    expect(await storedAmount()).toBe(400);
    expect((await other.listAudit('rt-outbox')).map((e) => e.walletVersion)).toEqual([2]);

    const change = { walletId, reservation: reservation(300), totals: withChange(slice!.totals, slice!.reservation, reservation(300)), audit: entry(3, 300) };
    expect(await other.saveReservationChange(change, 2)).toBe(true);
    await other.outbox.settle();
    await proxy.restore();
    expect((await other.listAudit('rt-outbox')).map((e) => e.walletVersion)).toEqual([2, 3]);
    expect(await storedAmount()).toBe(300);
  });

  it('a wallet nobody changes again: the sweep delivers its outbox, then clears it and the delivered ones', async () => {
    await lowerThenCut(1, 400);
    const sweep = other.outbox.start({}, { intervalMs: 3_600_000, graceMs: 0, batchSize: 10, maxBatches: 2 });
    expect(await sweep.runOnce()).toEqual({ delivered: 1, cleared: 1, failed: 0, pending: 0, oldestPendingAt: null });
    expect((await other.listAudit('rt-outbox')).map((e) => e.walletVersion)).toEqual([2]);
    expect(await storedAmount()).toBe(400);
    expect((await walletDoc())?.outbox).toBeUndefined();
    // Nothing left: the index of outboxes holds no delivered change.
    expect(await sweep.runOnce()).toEqual({ delivered: 0, cleared: 0, failed: 0, pending: 0, oldestPendingAt: null });
  });

  it('leaves a young outbox to the process that saved it (the grace)', async () => {
    await lowerThenCut(1, 400);
    const sweep = other.outbox.start({}, { intervalMs: 3_600_000, graceMs: 60_000, batchSize: 10, maxBatches: 2 });
    expect(await sweep.runOnce()).toEqual({ delivered: 0, cleared: 0, failed: 0, pending: 0, oldestPendingAt: null });
    expect((await walletDoc())?.outbox?.audit?._id.startsWith(auditEntryIdPrefix(walletId, 2))).toBe(true);
  });

  it('never replaces an undelivered outbox: a save without a read first delivers it before its own change', async () => {
    await lowerThenCut(1, 400);
    await proxy.restore();
    await readyAgain(killed);
    // The same process, back, saves again from the version it saved: its own delivery failed, so it delivers first.
    const totals = withChange(totalsOf([reservation(400)]), reservation(400), reservation(350));
    expect(await killed.saveReservationChange({ walletId, reservation: reservation(350), totals, audit: entry(3, 350) }, 2)).toBe(true);
    await killed.outbox.settle();
    expect((await other.listAudit('rt-outbox')).map((e) => e.walletVersion)).toEqual([2, 3]);
    expect(await storedAmount()).toBe(350);
  });
});
