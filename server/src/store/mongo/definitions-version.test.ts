import { MongoStore } from './mongo-store';
import { dropTestDatabase, testMongoSource, uniqueDbName } from './test-support/mongo-test-server';
import { createVoucherDefinitionService } from '../../features/voucher-definitions/service';
import type { VoucherDefinitionRecord } from '../../domain/model';
import { clientRecord, definitionRecord } from '../test-support/records';

const source = testMongoSource();

if (source.kind === 'none') {
  it.skip(`voucher definitions version on MongoDB: skipped, ${source.reason}`, () => undefined);
} else {
  describe('the voucher definitions version on MongoDB, two processes on one database', () => {
    const dbName = uniqueDbName('definitions-version');
    let writer: MongoStore;
    let reader: MongoStore;
    const connect = () => MongoStore.connect({ uri: source.uri, dbName, serverSelectionTimeoutMS: 10_000 });

    beforeAll(async () => {
      writer = await connect();
      reader = await connect();
    }, 60_000);
    afterAll(async () => {
      await writer?.close();
      await reader?.close();
      await dropTestDatabase(source.uri, dbName);
    });

    const definition = (voucherDefinitionId: string): VoucherDefinitionRecord => definitionRecord(voucherDefinitionId, { usageChannels: ['CUX'] });

    it('moves with every write of definitions, and at once on the process that wrote', async () => {
      const before = await writer.voucherDefinitionsVersion();
      await writer.upsertVoucherDefinitions([definition('vd-1')]);
      expect(await writer.voucherDefinitionsVersion()).toBe(before + 1);
      await writer.upsertVoucherDefinitions([]);
      expect(await writer.voucherDefinitionsVersion()).toBe(before + 1);
    });

    it('shows a new definition on another process within 2 s, listing it once per change', async () => {
      const client = clientRecord('c');
      let listings = 0;
      const service = createVoucherDefinitionService({
        store: { listPublishedVoucherDefinitions: (bu, channel) => (listings++, reader.listPublishedVoucherDefinitions(bu, channel)) },
        listingVersion: () => reader.voucherDefinitionsVersion(),
      });
      const ids = async () => (await service.listVoucherDefinitions(client, undefined)).map((d) => d.voucherDefinitionId);
      const first = await ids();
      await writer.upsertVoucherDefinitions([definition('vd-new')]);
      const written = performance.now();
      let seenAfterMs: number | null = null;
      while (performance.now() - written < 3000) {
        if ((await ids()).includes('vd-new')) {
          seenAfterMs = performance.now() - written;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(first).not.toContain('vd-new');
      expect(seenAfterMs).not.toBeNull();
      expect(seenAfterMs!).toBeLessThan(2000);
      // Listed once before the change and once after it, however often asked.
      expect(listings).toBe(2);
    });
  });
}
