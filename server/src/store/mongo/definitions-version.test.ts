import { definitionsVersionCheckMs, MongoStore } from './mongo-store';
import { dropTestDatabase, describeOnMongoDB, uniqueDbName } from '../test-support/mongo-test-server';
import { createVoucherDefinitionService } from '../../features/voucher-definitions/service';
import type { VoucherDefinitionRecord } from '../../domain/model';
import { clientRecord, definitionRecord } from '../test-support/records';

describeOnMongoDB('the voucher definitions version on MongoDB, two processes on one database', (uri) => {
  const dbName = uniqueDbName('definitions-version');
  let writer: MongoStore;
  let reader: MongoStore;
  const connect = () => MongoStore.connect({ uri, dbName, serverSelectionTimeoutMS: 10_000 });

  beforeAll(async () => {
    writer = await connect();
    reader = await connect();
  }, 60_000);
  afterAll(async () => {
    await writer?.close();
    await reader?.close();
    await dropTestDatabase(uri, dbName);
  });

  const definition = (voucherDefinitionId: string): VoucherDefinitionRecord => definitionRecord(voucherDefinitionId, { usageChannels: ['CUX'] });

  it('moves with every write of definitions, and at once on the process that wrote', async () => {
    const before = await writer.voucherDefinitionsVersion();
    await writer.upsertVoucherDefinitions([definition('vd-1')]);
    expect(await writer.voucherDefinitionsVersion()).toBe(before + 1);
    await writer.upsertVoucherDefinitions([]);
    expect(await writer.voucherDefinitionsVersion()).toBe(before + 1);
  });

  it('shows a new definition on another process once its check interval has passed, listing it once per change', async () => {
    const client = clientRecord('c');
    let listings = 0;
    const service = createVoucherDefinitionService({
      store: { listPublishedVoucherDefinitions: (bu, channel) => (listings++, reader.listPublishedVoucherDefinitions(bu, channel)) },
      listingVersion: () => reader.voucherDefinitionsVersion(),
    });
    const ids = async () => (await service.listVoucherDefinitions(client, undefined)).summaries.map((d) => d.voucherDefinitionId);
    // The processes' monotonic clock (performance.now), moved on by the test.
    const realNow = performance.now.bind(performance);
    let movedMs = 0;
    const clock = jest.spyOn(performance, 'now').mockImplementation(() => realNow() + movedMs);
    try {
      for (let i = 0; i < 3; i++) expect(await ids()).not.toContain('vd-new');
      await writer.upsertVoucherDefinitions([definition('vd-new')]);
      movedMs += definitionsVersionCheckMs;
      for (let i = 0; i < 3; i++) expect(await ids()).toContain('vd-new');
    } finally {
      clock.mockRestore();
    }
    // Listed once before the change and once after it, however often asked.
    expect(listings).toBe(2);
  });
});
