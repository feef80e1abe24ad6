import { withMemberIds } from '../domain/member-ids';
import { memberIdHash } from '../domain/secrets';
import { serverVersion } from '../version';
import { aliceToken, apiKeys, asAlice, startFakeApp, type FakeApp } from '../test-support/fake-services';
import type { SendInit } from '../test-support/api-client';

/*
 * The access log as an operator keeps it: every line with its ISO time, its
 * level by name, the service and its version; a request named by its route,
 * and by default never by the member's id or the reservation token, which
 * its URL holds.
 */

const routes = {
  startSession: '/client/users/{correlation_id}/sessions',
  listVoucherDefinitions: '/client/users/{correlation_id}/voucher-definitions',
  updateReservation: '/client/users/{correlation_id}/reservations/{reservation_token}',
};

const requests: Array<[keyof typeof routes, string, string, SendInit]> = [
  ['startSession', 'POST', '/client/users/m-alice/sessions', { headers: { 'x-identifier-type': 'CARD_NUMBER' } }],
  ['listVoucherDefinitions', 'GET', '/client/users/m-alice/voucher-definitions', asAlice],
  ['updateReservation', 'PUT', '/client/users/m-alice/reservations/rt-alice-1', { ...asAlice, json: { reservationAmount: 7500 } }],
];

const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let sent = 0;
async function logged(app: FakeApp, method: string, path: string, init: SendInit): Promise<Record<string, unknown>> {
  const id = `log-${++sent}`;
  await app.send(method, path, { ...init, headers: { ...init.headers, 'x-request-id': id } });
  const line = app.logs.find((entry) => entry.requestId === id);
  if (!line) throw new Error(`no log line for ${method} ${path}`);
  return line;
}

describe('LOG_MEMBER_IDS=hashed (the default)', () => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp();
  });
  afterAll(() => app.close());

  it.each(requests)('%s: ISO time, level name, service and version, the route and the member as a hash; no id, token or key', async (operation, method, path, init) => {
    const line = await logged(app, method, path, init);
    expect(line).toMatchObject({
      level: 'info',
      time: expect.stringMatching(isoTime),
      service: 'loyalty-api',
      version: serverVersion(),
      msg: 'request completed',
      req: { method, operation, route: routes[operation], memberHash: expect.stringMatching(/^[0-9a-f]{32}$/) },
      res: { statusCode: expect.any(Number) },
    });
    const text = JSON.stringify(line);
    for (const secret of ['m-alice', 'rt-alice-1', aliceToken, apiKeys.partner]) expect(text).not.toContain(secret);
  });

  it("gives a member one hash on every request, another member another", async () => {
    const hashes = await Promise.all(
      ['m-alice', 'm-alice', 'm-bob'].map(async (member) => (await logged(app, 'POST', `/client/users/${member}/sessions`, requests[0]![3])).req),
    );
    const [first, again, other] = hashes.map((req) => (req as { memberHash: string }).memberHash);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
  });

  it("takes the member's id and the token out of a failure's message and stack", async () => {
    app.services.reservations.updateReservation.mockRejectedValueOnce(new Error('member m-alice lost reservation rt-alice-1'));
    const line = await logged(app, ...(requests[2]!.slice(1) as [string, string, SendInit]));
    expect(line).toMatchObject({ level: 'error', msg: 'request errored', err: { type: 'Error', message: expect.stringMatching(/^member [0-9a-f]{32} lost reservation \{reservation_token\}$/) } });
    expect(JSON.stringify(line)).not.toMatch(/m-alice|rt-alice-1/);
  });

  it('takes out every member the failure carries too (a household co-member the service read), in its message and its causes', async () => {
    const cause = withMemberIds(new Error('m-hh-3 is moving'), ['m-hh-3']);
    app.services.reservations.updateReservation.mockRejectedValueOnce(withMemberIds(new Error('the share of m-hh-2 is locked', { cause }), ['m-hh-2']));
    const line = await logged(app, ...(requests[2]!.slice(1) as [string, string, SendInit]));
    expect(line).toMatchObject({ err: { type: 'Error', message: expect.stringMatching(/^the share of [0-9a-f]{32} is locked: [0-9a-f]{32} is moving$/) } });
    expect(JSON.stringify(line)).not.toMatch(/m-hh-2|m-hh-3/);
  });

  it.each([
    ['a path under the API that is no operation', 'GET', '/client/users/m-alice/points', '/client/*'],
    ['an operational path', 'GET', '/healthz?probe=m-alice', '/healthz'],
    ['a file of the docs', 'GET', '/docs/swagger-ui.css', '/docs/*'],
  ])('names %s by its first segment only', async (_case, method, path, route) => {
    const line = await logged(app, method, path, asAlice);
    expect(line.req).toMatchObject({ operation: 'other', route });
    expect(JSON.stringify(line)).not.toContain('m-alice');
  });
});

describe.each([
  ['off', {}],
  ['plain', { memberId: 'm-alice', url: '/client/users/m-alice/reservations/rt-alice-1' }],
] as const)('LOG_MEMBER_IDS=%s', (mode, shown) => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp({ logMemberIds: mode });
  });
  afterAll(() => app.close());

  it(mode === 'off' ? 'names no member at all' : 'names the member and the URL as sent', async () => {
    const line = await logged(app, ...(requests[2]!.slice(1) as [string, string, SendInit]));
    expect(line.req).toEqual({ id: expect.any(String), method: 'PUT', operation: 'updateReservation', route: routes.updateReservation, keyId: expect.any(String), ...shown });
  });
});

describe('memberIdHash', () => {
  it('is HMAC-SHA256 of the id under the key, its first 128 bits in hex', () => {
    const key = Buffer.alloc(32, 7);
    // printf m-alice | openssl dgst -sha256 -mac HMAC -macopt hexkey:0707…07 (32 bytes of 7)
    expect(memberIdHash(key, 'm-alice')).toBe('30cc3dbaa60697539ab8fbd2a011699b');
    expect(memberIdHash(Buffer.alloc(32, 8), 'm-alice')).not.toBe(memberIdHash(key, 'm-alice'));
  });
});
