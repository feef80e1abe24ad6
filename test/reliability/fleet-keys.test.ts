import { runAdmin } from '../../server/src/admin/cli';
import { fleetCredentialCaching } from '../../server/src/composition';
import { demoFixturePath, readFixtureFile } from '../../server/src/features/load/read-fixture';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { dropTestDatabase, describeOnMongoDB, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import { eventually } from '../../server/src/test-support/time';

/*
 * Partner keys changed on a running fleet: two processes' worth of services,
 * each keeping the credentials it reads as main keeps them on MongoDB
 * (`fleetCredentialCaching`), on one database, keys changed with
 * loyalty-admin. A roll fails no request made with either key during the
 * grace; a revocation makes every process refuse the key and its sessions
 * (401) within the documented 5 seconds (each process keeps a key it read
 * for at most 2), and so do the origins a publishable key lets through the
 * CORS preflights. The processes' clocks are the test's: the bound is
 * crossed by moving them, not by waiting. Runs whenever MONGODB_URI is set.
 */

jest.setTimeout(120_000);

const oldKey = 'demo_secret_partner_app_0001';
/** The documented bound (docs/operating.md): a key change holds on every process within this. */
const propagationBoundSeconds = 5;

describeOnMongoDB('partner keys on a fleet of two processes', (uri) => {
  const dbName = uniqueDbName('fleetkeys');
  const env = { MONGODB_URI: uri, MONGODB_DB: dbName };
  let fleet: TestApp | undefined;
  let urls: string[];

  /** loyalty-admin with --json, as an operator would run it against the fleet's database. */
  async function admin(...args: string[]): Promise<Record<string, unknown>> {
    let stdout = '';
    const streams = { stdout: { write: (text: string) => ((stdout += text), true) }, stderr: { write: () => true, isTTY: false } };
    const code = await runAdmin([...args, '--json'], env, streams);
    if (code !== 0) throw new Error(`loyalty-admin ${args.join(' ')} exited ${code}: ${stdout}`);
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  const session = async (url: string, apiKey: string): Promise<string> => {
    const response = await fetch(`${url}/client/users/m-alice/sessions`, { method: 'POST', headers: { 'x-api-key': apiKey, 'x-identifier-type': 'CARD_NUMBER' } });
    const body = (await response.json()) as { sessionToken?: string };
    if (response.status !== 201 || !body.sessionToken) throw new Error(`session: ${response.status}`);
    return body.sessionToken;
  };
  const listing = (url: string, apiKey: string, token: string) =>
    fetch(`${url}/client/users/m-alice/voucher-definitions`, { headers: { 'x-api-key': apiKey, authorization: `Bearer ${token}` } }).then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    });

  beforeAll(async () => {
    const store = await MongoStore.connect({ uri, dbName, serverSelectionTimeoutMS: 10_000 });
    // Two instances, each with its own services and the keys and sessions it keeps for up to 2 s.
    fleet = await startTestApp({ store, fixture: await readFixtureFile(demoFixturePath), credentialCaching: fleetCredentialCaching, instances: 2 });
    urls = fleet.urls;
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    await dropTestDatabase(uri, dbName);
  }, 60_000);

  it('rolls a key under traffic: no request with either key fails during the grace; then revokes the old one on every process', async () => {
    const oldSessions = await Promise.all(urls.map((url) => session(url, oldKey)));
    // Traffic with the old key on both processes, while the operator rolls.
    let stop = false;
    const statuses: number[] = [];
    const traffic = Promise.all(
      urls.map(async (url, i) => {
        while (!stop) statuses.push(await listing(url, oldKey, oldSessions[i]!));
      }),
    );
    const rolled = await admin('keys', 'roll', '--client', 'partner-app', '--grace', '3600');
    const newKey = String(rolled.apiKey);
    // The new key works at once on both, with new sessions and with the old ones.
    for (const [i, url] of urls.entries()) {
      statuses.push(await listing(url, newKey, await session(url, newKey)));
      statuses.push(await listing(url, newKey, oldSessions[i]!));
    }
    const afterRoll = statuses.length;
    await eventually('traffic with the old key after the roll', () => statuses.length >= afterRoll + 20);
    stop = true;
    await traffic;
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);

    // Revoked: both processes refuse the key and the sessions it started, within the bound.
    const listed = await admin('keys', 'list', '--client', 'partner-app');
    const old = (listed.keys as Array<{ keyId: string; expiresAt: string | null }>).find((k) => k.keyId !== rolled.keyId);
    expect(old?.expiresAt).not.toBeNull();
    await admin('keys', 'revoke', '--client', 'partner-app', '--key', old!.keyId);
    fleet!.advance(propagationBoundSeconds);
    for (const [i, url] of urls.entries()) {
      expect(await listing(url, oldKey, oldSessions[i]!)).toBe(401);
      expect(await listing(url, newKey, oldSessions[i]!)).toBe(401);
    }
    // The rolled key still works, with a session of its own.
    for (const url of urls) expect(await listing(url, newKey, await session(url, newKey))).toBe(200);
  });

  it("a publishable key made, then revoked: its origin's preflights and the key follow on both processes, within the bound", async () => {
    const origin = 'https://kiosk.partner.example';
    const preflight = (url: string) =>
      fetch(`${url}/client/users/m-alice/voucher-definitions`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,x-api-key' },
      }).then(async (r) => {
        await r.arrayBuffer();
        return r.headers.get('access-control-allow-origin') === origin ? r.status : -r.status;
      });
    const fromPage = (url: string, apiKey: string, token: string) =>
      fetch(`${url}/client/users/m-alice/voucher-definitions`, { headers: { 'x-api-key': apiKey, authorization: `Bearer ${token}`, origin } }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      });
    const secret = String((await admin('keys', 'create', '--client', 'partner-app')).apiKey);
    const sessions = await Promise.all(urls.map((url) => session(url, secret)));
    for (const url of urls) expect(await preflight(url)).toBe(-401);
    const created = await admin('keys', 'create', '--client', 'partner-app', '--publishable', '--origin', origin);
    expect(created).toMatchObject({ kind: 'publishable', origins: [origin] });
    const publishable = String(created.apiKey);
    fleet!.advance(propagationBoundSeconds);
    for (const [i, url] of urls.entries()) {
      expect(await preflight(url)).toBe(204);
      expect(await fromPage(url, publishable, sessions[i]!)).toBe(200);
    }

    await admin('keys', 'revoke', '--client', 'partner-app', '--key', String(created.keyId));
    fleet!.advance(propagationBoundSeconds);
    for (const [i, url] of urls.entries()) {
      expect(await preflight(url)).toBe(-401);
      expect(await fromPage(url, publishable, sessions[i]!)).toBe(401);
    }
    // The secret key that started the sessions is untouched.
    for (const [i, url] of urls.entries()) expect(await listing(url, secret, sessions[i]!)).toBe(200);
  });
});
