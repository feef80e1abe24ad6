import { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { depsOf, outboxWarnings, walletLabelOf } from './composition';
import { defaultWalletLimits } from './domain/limits';
import { withMemberIds, type MemberIdMode } from './domain/member-ids';
import { memberIdHash } from './domain/secrets';
import { MemoryStore } from './store/memory/memory-store';
import { collectionNames } from './store/mongo/collections';
import type { QuotaClaim, QuotaReturn, SweepObservers } from './store/port';
import { connectTestStore, dropTestDatabase, describeOnMongoDB } from './store/test-support/mongo-test-server';

const key = new Uint8Array(32).fill(7);

describe('walletLabelOf: how a log line names a wallet', () => {
  it.each([
    ['hashed', 'member:m-alice', `member:${memberIdHash(key, 'm-alice')}`],
    ['off', 'member:m-alice', 'member:{correlation_id}'],
    ['plain', 'member:m-alice', 'member:m-alice'],
    ['hashed', 'household:hh-1', 'household:hh-1'],
    ['off', 'household:hh-1', 'household:hh-1'],
  ] as const)('LOG_MEMBER_IDS=%s: %s as %s', (mode, walletId, shown) => {
    expect(walletLabelOf({ mode, key })(walletId)).toBe(shown);
  });
});

describe("the outbox's warnings show members as LOG_MEMBER_IDS says", () => {
  const retryAt = new Date('2030-01-01T00:01:00.000Z');
  /** A delivery's failure as the outbox lets it out: its text quotes the members it names, which it carries (outbox.ts). */
  const refusal = () => withMemberIds(new Error('write of m-hh-2 and m-solo refused'), ['m-hh-1', 'm-hh-2', 'm-solo']);
  const hash = (id: string) => memberIdHash(key, id);

  it.each<[MemberIdMode, string, string, string[]]>([
    ['hashed', 'household:hh-1', `Outbox of wallet household:hh-1 set aside after 2 failed deliveries, taken again at ${retryAt.toISOString()}: Error: write of ${hash('m-hh-2')} and ${hash('m-solo')} refused`, ['m-hh-2', 'm-solo']],
    ['hashed', 'member:m-solo', `Outbox of wallet member:${hash('m-solo')} set aside after 2 failed deliveries, taken again at ${retryAt.toISOString()}: Error: write of ${hash('m-hh-2')} and ${hash('m-solo')} refused`, ['m-hh-2', 'm-solo']],
    ['off', 'member:m-solo', `Outbox of wallet member:{correlation_id} set aside after 2 failed deliveries, taken again at ${retryAt.toISOString()}: Error: write of {correlation_id} and {correlation_id} refused`, ['m-hh-2', 'm-solo']],
    ['plain', 'member:m-solo', `Outbox of wallet member:m-solo set aside after 2 failed deliveries, taken again at ${retryAt.toISOString()}: Error: write of m-hh-2 and m-solo refused`, []],
  ])('LOG_MEMBER_IDS=%s: an outbox of %s set aside', (mode, walletId, message, hidden) => {
    const lines: unknown[][] = [];
    const warnings = outboxWarnings({ warn: (...args: unknown[]) => void lines.push(args) } as never, { mode, key });
    warnings.onSetAside!({ walletId, failures: 2, retryAt, error: refusal() });
    expect(lines).toHaveLength(1);
    expect(lines[0]![1]).toBe(message);
    for (const id of hidden) expect(JSON.stringify(lines[0])).not.toContain(id);
  });

  it.each<[MemberIdMode, string]>([
    ['hashed', `Outbox sweep failed, trying again at its next run: Error: write of ${hash('m-hh-2')} and ${hash('m-solo')} refused`],
    ['off', 'Outbox sweep failed, trying again at its next run: Error: write of {correlation_id} and {correlation_id} refused'],
    ['plain', 'Outbox sweep failed, trying again at its next run: Error: write of m-hh-2 and m-solo refused'],
  ])('LOG_MEMBER_IDS=%s: a sweep that failed', (mode, message) => {
    const lines: unknown[] = [];
    outboxWarnings({ warn: (line: unknown) => void lines.push(line) } as never, { mode, key }).onError!(refusal());
    expect(lines).toEqual([message]);
  });
});

describe('depsOf: what a process builds on its store, by what the store can do', () => {
  const config = { walletLimits: defaultWalletLimits, rateLimitPerMinute: 6000 };
  const logger = pino({ level: 'silent' });

  it('on a store with none of the capabilities (the embedded store): the services on the store, nothing else', async () => {
    const store = new MemoryStore({ sessionSweepIntervalMs: 0 });
    const deps = depsOf(store, config, logger);
    expect(deps.store).toBe(store);
    expect(deps).not.toHaveProperty('liveness');
    expect(deps).not.toHaveProperty('requestCounter');
    await deps.store.close();
  });

  it("on a store with them: its outbox's sweep started, its liveness, the fleet's count, which gives back its tokens before the store closes", async () => {
    const events: string[] = [];
    const store = Object.assign(new MemoryStore({ sessionSweepIntervalMs: 0 }), {
      outbox: {
        start: (observers: SweepObservers = {}) => void events.push(`sweep started, told of ${Object.keys(observers).sort().join(' ')}`),
        settle: async () => undefined,
        close: async () => undefined,
      },
      liveness: () => ({ live: false as const, reason: 'stuck' }),
      claimQuota: async (claim: QuotaClaim) => (events.push(`claimed ${claim.want}`), { claimed: claim.want, claimers: 1 }),
      returnQuota: async (returned: QuotaReturn) => void events.push(`gave back ${returned.tokens}`),
      close: async () => void events.push('store closed'),
    });
    const deps = depsOf(store, config, logger);
    expect(deps.liveness?.()).toEqual({ live: false, reason: 'stuck' });
    await deps.requestCounter!.hit('client-1');
    await deps.store.close();
    expect(events).toEqual(['sweep started, told of onError onSetAside', 'claimed 20', 'gave back 19', 'store closed']);
  });
});

describeOnMongoDB('depsOf on MongoDB, when the process stops', (uri) => {
  it("closing its store gives the rate limit's unspent tokens back to the window's count first, then closes the client", async () => {
    const { store, dbName } = await connectTestStore(uri, 'composition-close');
    const reader = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
    try {
      const deps = depsOf(store, { walletLimits: defaultWalletLimits, rateLimitPerMinute: 6000 }, pino({ level: 'silent' }));
      const windows = reader.db(dbName).collection(collectionNames.rateLimits);
      await deps.requestCounter!.hit('client-closing');
      // Its first block: 20 tokens claimed, 1 spent.
      expect((await windows.findOne({}))?.claimed).toBe(20);
      await deps.store.close();
      expect((await windows.findOne({}))?.claimed).toBe(1);
    } finally {
      await reader.close();
      await dropTestDatabase(uri, dbName);
    }
  });
});
