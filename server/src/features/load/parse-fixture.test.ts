import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { newApiKey } from '../../domain/secrets';
import { deepCopy } from '../../store/copy';
import { FixtureError } from './fixture-error';
import type { Fixture } from './fixture-schema';
import { parseFixture } from './parse-fixture';
import { demoFixturePath, readFixtureFile } from './read-fixture';

/** A verbatim copy of the shared example fixture (the repository must not read the shared folder). */
const examplePath = path.resolve(__dirname, '..', '..', '..', 'fixtures', 'example.json');

type Json = Record<string, unknown>;

/** A small valid fixture; each bad case below breaks one thing in a copy of it. */
const valid = (): Json => ({
  clients: [{ clientId: 'partner-app', apiKey: 'secret_test_partner_0001', enabledBusinessUnits: ['LCL'], defaultBusinessUnit: 'LCL' }],
  members: [
    { correlationId: 'm-alice', pointBalance: 500 },
    { correlationId: 'm-hh-1', pointBalance: 300, householdId: 'hh-1' },
    { correlationId: 'm-hh-2', pointBalance: 200, householdId: 'hh-1' },
  ],
  reservations: [
    {
      reservationToken: 'rt-1',
      clientId: 'partner-app',
      correlationId: 'm-hh-1',
      identifierType: 'CARD_NUMBER',
      reservationAmount: 100,
      contributions: [
        { correlationId: 'm-hh-1', points: 60 },
        { correlationId: 'm-hh-2', points: 40 },
      ],
    },
  ],
  voucherDefinitions: [
    {
      voucherDefinitionId: 'vd-1',
      adminId: 'ADM-1',
      businessUnit: 'LCL',
      status: 'PUBLISHED',
      definitionName: '$5 off',
      rewardType: 'DOLLAR_OFF',
      rewardMetadata: { amount: 5, unit: 'FLAT', scopeType: 'CART' },
      expiryRule: { type: 'ROLLING', rollingDays: 30 },
      creative: {},
    },
  ],
});

/** Walks a JSON pointer-ish list of keys to the object to change. */
function at(json: Json, ...keys: Array<string | number>): Json {
  let node: unknown = json;
  for (const key of keys) node = (node as Record<string | number, unknown>)[key];
  return node as Json;
}

const broken = (change: (json: Json) => void): Json => {
  const json = valid();
  change(json);
  return json;
};

describe('parseFixture', () => {
  it('accepts the valid base fixture and returns a copy without adding defaults', () => {
    const json = valid();
    const parsed = parseFixture(json);
    expect(parsed).toEqual(json);
    expect(parsed.clients?.[0]?.vouchersEnabled).toBeUndefined();
    at(json, 'members', 0).pointBalance = 1;
    expect(parsed.members?.[0]?.pointBalance).toBe(500);
  });

  it.each<[string, unknown, string]>([
    ['a non-integer balance', broken((j) => (at(j, 'members', 2).pointBalance = 1.5)), '/members/2/pointBalance: must be integer'],
    ['a negative balance', broken((j) => (at(j, 'members', 0).pointBalance = -1)), '/members/0/pointBalance: must be >= 0'],
    ['a missing correlationId', broken((j) => delete at(j, 'members', 1).correlationId), '/members/1/correlationId: is required'],
    ['an unknown client field', broken((j) => (at(j, 'clients', 0).secret = 'x')), '/clients/0/secret: is not an allowed property'],
    ['an unknown collection', broken((j) => (j.widgets = [])), '/widgets: is not an allowed property'],
    ['an escaped property name', broken((j) => (j['a/b~c'] = 1)), '/a~1b~0c: is not an allowed property'],
    ['a short API key', broken((j) => (at(j, 'clients', 0).apiKey = 'short')), '/clients/0/apiKey: must NOT have fewer than 8 characters'],
    ['a session lifetime past a day', broken((j) => (at(j, 'clients', 0).sessionTtlSeconds = 100_000)), '/clients/0/sessionTtlSeconds: must be <= 86400'],
    ['a tier below 1', broken((j) => (at(j, 'clients', 0).redemptionTiers = [1000, 0])), '/clients/0/redemptionTiers/1: must be >= 1'],
    ['a wrong nullable type', broken((j) => (at(j, 'clients', 0).dailyRedemptionCap = '10')), '/clients/0/dailyRedemptionCap: must be integer,null'],
    ['a collection that is not an array', broken((j) => (j.members = {})), '/members: must be array'],
    ['a fixture that is not an object', [], '/: must be object'],
    ['an expiry that is not a date-time', broken((j) => (at(j, 'reservations', 0).expiresAt = 'tomorrow')), '/reservations/0/expiresAt: must match format "date-time"'],
    ['rewardMetadata without scopeType', broken((j) => delete at(j, 'voucherDefinitions', 0, 'rewardMetadata').scopeType), '/voucherDefinitions/0/rewardMetadata/scopeType: is required'],
    ['rewardMetadata without amount', broken((j) => delete at(j, 'voucherDefinitions', 0, 'rewardMetadata').amount), '/voucherDefinitions/0/rewardMetadata/amount: is required'],
    ['a string amount', broken((j) => (at(j, 'voucherDefinitions', 0, 'rewardMetadata').amount = '5')), '/voucherDefinitions/0/rewardMetadata/amount: must be number'],
    ['a default unit not enabled', broken((j) => (at(j, 'clients', 0).defaultBusinessUnit = 'GAS')), '/clients/0/defaultBusinessUnit: must be one of enabledBusinessUnits'],
    ['contributions not summing to the amount', broken((j) => (at(j, 'reservations', 0).reservationAmount = 101)), '/reservations/0/contributions: points sum to 100, must equal reservationAmount (101)'],
    ['an empty household id', broken((j) => (at(j, 'members', 0).householdId = '')), '/members/0/householdId: must not be empty'],
    [
      'a duplicate member',
      broken((j) => (j.members as Json[]).push({ correlationId: 'm-alice', pointBalance: 1 })),
      '/members/3/correlationId: duplicate key "m-alice", first at /members/0',
    ],
    [
      'a duplicate client',
      broken((j) => (j.clients as Json[]).push({ clientId: 'partner-app', apiKey: 'pk_other_0002', enabledBusinessUnits: [] })),
      '/clients/1/clientId: duplicate key "partner-app", first at /clients/0',
    ],
    [
      'a duplicate reservation key',
      broken((j) => (j.reservations as Json[]).push(deepCopy(at(j, 'reservations', 0)))),
      '/reservations/1/reservationToken: duplicate key',
    ],
    [
      'a duplicate contributor',
      broken((j) => (at(j, 'reservations', 0).contributions = [{ correlationId: 'm-hh-1', points: 60 }, { correlationId: 'm-hh-1', points: 40 }])),
      '/reservations/0/contributions/1/correlationId: duplicate key "m-hh-1", first at /reservations/0/contributions/0',
    ],
    [
      'a duplicate definition',
      broken((j) => (j.voucherDefinitions as Json[]).push(deepCopy(at(j, 'voucherDefinitions', 0)))),
      '/voucherDefinitions/1/voucherDefinitionId: duplicate key "vd-1"',
    ],
    [
      'a reservation of an unknown client without expiry',
      broken((j) => (at(j, 'reservations', 0).clientId = 'ghost-app')),
      '/reservations/0/clientId: client "ghost-app" is not in this fixture',
    ],
    ...(
      [
        ['with a path', 'https://app.example.com/shop', 'is not written as browsers send it (https://app.example.com)'],
        ['with a trailing slash', 'https://app.example.com/', 'is not written as browsers send it (https://app.example.com)'],
        ['with an upper-case host', 'https://APP.example.com', 'is not written as browsers send it (https://app.example.com)'],
        ['with its default port', 'https://app.example.com:443', 'is not written as browsers send it (https://app.example.com)'],
        ['of another scheme', 'ftp://app.example.com', 'is not http:// or https://'],
        ['that is no URL', 'app.example.com', 'is not a URL'],
        ['"null" (the opaque origin)', 'null', 'is not a URL'],
      ] as const
    ).map(([what, origin, message]): [string, unknown, string] => [
      `a publishable key's origin ${what}`,
      broken((j) => (at(j, 'clients', 0).publishableKeys = [{ apiKey: 'publishable_test_web_0001', origins: ['https://ok.example.com', origin] }])),
      `/clients/0/publishableKeys/0/origins: origins must be exact origins such as https://app.example.com: ${JSON.stringify(origin)} ${message}`,
    ]),
    [
      'an origin named twice',
      broken((j) => (at(j, 'clients', 0).publishableKeys = [{ apiKey: 'publishable_test_web_0001', origins: ['https://app.example.com', 'https://app.example.com'] }])),
      '/clients/0/publishableKeys/0/origins: "https://app.example.com" is named twice',
    ],
    [
      'a publishable key without origins',
      broken((j) => (at(j, 'clients', 0).publishableKeys = [{ apiKey: 'publishable_test_web_0001', origins: [] }])),
      '/clients/0/publishableKeys/0/origins: must NOT have fewer than 1 items',
    ],
    [
      'a publishable key with eleven origins',
      broken((j) => (at(j, 'clients', 0).publishableKeys = [{ apiKey: 'publishable_test_web_0001', origins: Array.from({ length: 11 }, (_, i) => `https://app${i}.example.com`) }])),
      '/clients/0/publishableKeys/0/origins: must NOT have more than 10 items',
    ],
    [
      'a publishable key without its apiKey',
      broken((j) => (at(j, 'clients', 0).publishableKeys = [{ origins: ['https://app.example.com'] }])),
      '/clients/0/publishableKeys/0/apiKey: is required',
    ],
  ])('rejects %s, naming its path', (_problem, json, expected) => {
    expect(() => parseFixture(json)).toThrow(FixtureError);
    expect(() => parseFixture(json)).toThrow(expected);
  });

  it('accepts a reservation of an unknown client when it gives its expiry', () => {
    const json = broken((j) => Object.assign(at(j, 'reservations', 0), { clientId: 'ghost-app', expiresAt: '2030-01-01T00:00:00Z' }));
    expect(() => parseFixture(json)).not.toThrow();
  });

  it('accepts a session lifetime of a day, the longest', () => {
    expect(parseFixture(broken((j) => (at(j, 'clients', 0).sessionTtlSeconds = 86_400))).clients?.[0]?.sessionTtlSeconds).toBe(86_400);
  });

  it('lists every problem at once, each with its path', () => {
    const json = broken((j) => {
      at(j, 'members', 2).pointBalance = 1.5;
      at(j, 'clients', 0).vouchersEnabled = 'yes';
    });
    const error = captureFixtureError(() => parseFixture(json, 'seed.json'));
    expect(error.message).toMatch(/^Invalid seed\.json:\n/);
    expect(error.issues).toEqual(
      expect.arrayContaining([
        { path: '/members/2/pointBalance', message: 'must be integer' },
        { path: '/clients/0/vouchersEnabled', message: 'must be boolean' },
      ]),
    );
  });

  it('never repeats an API key in its message, whatever the kinds of the two', () => {
    const json = broken((j) => (at(j, 'clients', 0).publishableKeys = [{ apiKey: 'secret_test_partner_0001', origins: ['https://app.example.com'] }]));
    const error = captureFixtureError(() => parseFixture(json));
    expect(error.message).toContain('/clients/0/publishableKeys/0/apiKey: duplicate value, first at /clients/0/apiKey');
    expect(error.message).not.toContain('secret_test_partner_0001');
  });

  describe('keys in the generated form (lsk_, lpk_)', () => {
    const secret = newApiKey('secret').apiKey;
    const publishable = newApiKey('publishable').apiKey;
    /** The key with its last character (the checksum's) changed. */
    const badChecksum = (key: string) => `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
    const origins = ['https://app.example.com'];
    const notAKey = 'starts as a generated key (lsk_, lpk_) but is not one, or its checksum is wrong: it could never authenticate';

    it.each<[string, (j: Json) => void, string]>([
      ['a secret key whose checksum is wrong', (j) => (at(j, 'clients', 0).apiKey = badChecksum(secret)), `/clients/0/apiKey: ${notAKey}`],
      ['one of several secret keys whose checksum is wrong', (j) => (at(j, 'clients', 0).apiKeys = ['secret_test_partner_0002', badChecksum(secret)]), `/clients/0/apiKeys/1: ${notAKey}`],
      ['a publishable key whose checksum is wrong', (j) => (at(j, 'clients', 0).publishableKeys = [{ apiKey: badChecksum(publishable), origins }]), `/clients/0/publishableKeys/0/apiKey: ${notAKey}`],
      ['a free-form key with the prefix of secret keys', (j) => (at(j, 'clients', 0).apiKey = 'lsk_test_partner_0001'), `/clients/0/apiKey: ${notAKey}`],
      ['a generated key cut short', (j) => (at(j, 'clients', 0).apiKey = secret.slice(0, -1)), `/clients/0/apiKey: ${notAKey}`],
      ['a publishable key given as a secret key', (j) => (at(j, 'clients', 0).apiKeys = [publishable]), '/clients/0/apiKeys/0: is a generated publishable key (lpk_), given as a secret key'],
      ['a secret key given as a publishable key', (j) => (at(j, 'clients', 0).publishableKeys = [{ apiKey: secret, origins }]), '/clients/0/publishableKeys/0/apiKey: is a generated secret key (lsk_), given as a publishable key'],
    ])('refuses %s, naming its path and never the key', (_case, change, expected) => {
      const error = captureFixtureError(() => parseFixture(broken(change)));
      expect(error.message).toContain(expected);
      for (const key of [secret, publishable]) expect(error.message).not.toContain(key.slice(4, -6));
    });

    it('accepts generated keys of the kinds they are given as, beside free-form keys', () => {
      const json = broken((j) => {
        at(j, 'clients', 0).apiKeys = [secret];
        at(j, 'clients', 0).publishableKeys = [{ apiKey: publishable, origins }];
      });
      expect(() => parseFixture(json)).not.toThrow();
    });
  });

  it('accepts a client whose only keys are publishable', () => {
    const json = broken((j) => {
      delete at(j, 'clients', 0).apiKey;
      at(j, 'clients', 0).publishableKeys = [{ apiKey: 'publishable_test_web_0001', origins: ['https://app.example.com', 'http://127.0.0.1:5173'] }];
    });
    expect(parseFixture(json).clients?.[0]?.publishableKeys?.[0]?.origins).toEqual(['https://app.example.com', 'http://127.0.0.1:5173']);
  });

  it('never repeats an API key in its message', () => {
    const json = broken((j) => (j.clients as Json[]).push({ clientId: 'copycat', apiKey: 'secret_test_partner_0001', enabledBusinessUnits: [] }));
    const error = captureFixtureError(() => parseFixture(json));
    expect(error.message).toContain('/clients/1/apiKey: duplicate value, first at /clients/0');
    expect(error.message).not.toContain('secret_test_partner_0001');
  });

  it('keeps a long list readable', () => {
    const json = { members: Array.from({ length: 80 }, (_, i) => ({ correlationId: `m-${i}`, pointBalance: -1 })) };
    const error = captureFixtureError(() => parseFixture(json));
    expect(error.issues).toHaveLength(80);
    expect(error.message).toContain('... and 30 more');
  });
});

describe('readFixtureFile', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fixture-test-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('names the file when its JSON is malformed', async () => {
    const file = path.join(dir, 'broken.json');
    await writeFile(file, '{ "members": [ }');
    await expect(readFixtureFile(file)).rejects.toThrow(`Invalid fixture file ${file}:\n  /: invalid JSON`);
  });

  it('names the file when it cannot be read', async () => {
    const file = path.join(dir, 'missing.json');
    await expect(readFixtureFile(file)).rejects.toThrow(`Invalid fixture file ${file}:\n  /: cannot read the file (ENOENT)`);
  });

  it('names the file and the path of a schema error', async () => {
    const file = path.join(dir, 'bad.json');
    await writeFile(file, JSON.stringify(broken((j) => (at(j, 'members', 2).pointBalance = 'lots'))));
    await expect(readFixtureFile(file)).rejects.toThrow(`Invalid fixture file ${file}:\n  /members/2/pointBalance: must be integer`);
  });
});

describe('shipped fixtures', () => {
  it('parses the shared example', async () => {
    await expect(readFixtureFile(examplePath)).resolves.toBeDefined();
  });

  it('parses the demo fixture', async () => {
    const demo = await readFixtureFile(demoFixturePath);
    expect(demo.voucherDefinitions?.length).toBeGreaterThanOrEqual(7);
  });

  it('keeps every record of the example unchanged in the demo fixture, but for the publishable keys the demo adds', async () => {
    const example = JSON.parse(await readFile(examplePath, 'utf8')) as Fixture;
    const demo = JSON.parse(await readFile(demoFixturePath, 'utf8')) as Fixture;
    const collections = Object.keys(example) as Array<keyof Fixture>;
    expect(collections.length).toBeGreaterThan(0);
    const withoutPublishableKeys = (record: object) => Object.fromEntries(Object.entries(record).filter(([field]) => field !== 'publishableKeys'));
    for (const name of collections) {
      const records = example[name] ?? [];
      expect(demo[name]?.slice(0, records.length).map(withoutPublishableKeys)).toEqual(records);
    }
  });

  it('covers the cases the demo promises', async () => {
    const demo = await readFixtureFile(demoFixturePath);
    const definitions = demo.voucherDefinitions ?? [];
    expect(definitions.some((d) => d.usageChannels === undefined && d.status === 'PUBLISHED')).toBe(true);
    expect(definitions.some((d) => d.usageChannels?.length === 0 && d.status === 'PUBLISHED')).toBe(true);
    expect(definitions.some((d) => d.usageChannels?.join() === 'POS')).toBe(true);
    expect(definitions.some((d) => d.status === 'ARCHIVED')).toBe(true);
    expect(definitions.some((d) => d.businessUnit === 'SDM')).toBe(true);
    expect(demo.catalogueItems?.length).toBeGreaterThanOrEqual(2);
    expect(demo.members?.some((m) => m.correlationId === 'm-phone')).toBe(true);
    const households = new Map<string, number>();
    for (const m of demo.members ?? []) if (m.householdId) households.set(m.householdId, (households.get(m.householdId) ?? 0) + 1);
    expect([...households.values()]).toContain(3);
    const clients = demo.clients ?? [];
    expect(clients.some((c) => c.redemptionTiers?.length && c.dailyRedemptionCap != null)).toBe(true);
    expect(clients.some((c) => c.vouchersEnabled === false)).toBe(true);
    expect(clients.some((c) => c.defaultBusinessUnit == null)).toBe(true);
    // The web example's key (examples/web): publishable, for its page's default origin.
    expect(clients.find((c) => c.clientId === 'partner-app')?.publishableKeys).toEqual([
      { apiKey: 'demo_publishable_partner_web_0001', origins: ['http://127.0.0.1:5173'] },
    ]);
  });
});

function captureFixtureError(run: () => unknown): FixtureError {
  try {
    run();
  } catch (error) {
    if (error instanceof FixtureError) return error;
    throw error;
  }
  throw new Error('expected a FixtureError');
}
