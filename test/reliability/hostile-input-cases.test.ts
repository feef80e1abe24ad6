import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { problemsOfAnswer } from '../support/answers';
import { keys } from '../support/fixture';
import { send, type RawRequest } from '../support/http';
import { startWorld, type World } from '../support/world';

/*
 * Hostile requests the property tests found (or that sit at a limit a
 * generator would rarely reach), each as its own named example so that a
 * failure says what is wrong without a shrinking session. Same checks as the
 * properties: a documented answer, never a 5xx, nothing leaked, nothing
 * written by a rejected request, whole points only.
 */

let world: World;
let headers: Record<string, string>;
const path = '/client/users/m-alice/reservations/rt-alice-1';

beforeAll(async () => {
  world = await startWorld();
  const session = await world.apis[0]!.session(keys.partner, 'm-alice');
  headers = { 'x-api-key': keys.partner, authorization: `Bearer ${session.sessionToken}`, 'content-type': 'application/json' };
});
afterAll(() => world.close());
beforeEach(async () => {
  await world.restore();
  world.spy.violations.splice(0);
});

/** Sends `req`; expects a documented 4xx and nothing written. Returns the answer for further checks. */
async function expectRejectedCleanly(req: RawRequest): Promise<Awaited<ReturnType<typeof send>>> {
  const writes = world.spy.writes;
  const before = await world.wallets();
  const res = await send(world.urls[0]!, req);
  expect(problemsOfAnswer(req, res)).toEqual([]);
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(world.spy.writes).toBe(writes);
  expect(await world.wallets()).toEqual(before);
  return res;
}

describe('compressed bodies', () => {
  // The server takes no content coding (bodies are at most 16 KiB): any
  // compressed body is 415, so nothing is ever inflated.
  it('a valid gzip body: 415 in the documented shape', async () => {
    const req = { method: 'PUT', path, headers: { ...headers, 'content-encoding': 'gzip' }, body: gzipSync('{"reservationAmount":10000}') };
    expect((await expectRejectedCleanly(req)).status).toBe(415);
  });

  it.each(['gzip', 'deflate', 'br'])('a %s body that does not decompress: a documented 4xx, not a 500', async (encoding) => {
    await expectRejectedCleanly({ method: 'PUT', path, headers: { ...headers, 'content-encoding': encoding }, body: Buffer.from('{"reservationAmount":1}') });
  });
});

describe('deeply nested JSON', () => {
  const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  it.each([10, 1000, 3000])('a body nested %i deep outside the items: 400 in the documented shape', async (depth) => {
    await expectRejectedCleanly({ method: 'PUT', path, headers, body: `{"reservationAmount":1,"channel":"CUX","x":${deep(depth)}}` });
  });

  // An invalid item is echoed in invalidCatalogueItems: one nested this deep
  // would overflow the stack of JSON.stringify, so nesting is limited first.
  it.each([5000, 7000])('a catalogue item nested %i deep: JSON error body, no stack trace', async (depth) => {
    const body = `{"reservationAmount":1,"redemptionId":"rd-100","redeemerId":"m-alice","catalogueItems":[{"productCode":"0000000001","quantity":${deep(depth)}}]}`;
    await expectRejectedCleanly({ method: 'PUT', path, headers, body });
  });
});

describe('fractional quantities', () => {
  // A fractional quantity would reserve a fraction of a point (pointsAmount *
  // quantity), which splitReturn cannot return: quantities are whole units
  // (the spec's decision), so a fraction is refused and nothing changes.
  it('an offline creation from fractional item quantities: refused, nothing stored', async () => {
    const create = {
      method: 'PUT',
      path: '/client/users/m-alice/reservations/rt-fraction',
      headers,
      body: JSON.stringify({ offline: true, redemptionId: 'rd-100', redeemerId: 'm-alice', catalogueItems: [{ productCode: '0000000003', quantity: 2.75 }] }),
    };
    await expectRejectedCleanly(create);
    expect(world.spy.violations.splice(0)).toEqual([]);
    expect(await world.conservation()).toEqual([]);
  });

  it('fractional quantities with a whole reservationAmount: refused, nothing changed', async () => {
    const req = {
      method: 'PUT',
      path,
      headers,
      body: JSON.stringify({ reservationAmount: 5000, redemptionId: 'rd-100', redeemerId: 'm-alice', catalogueItems: [{ productCode: '0000000001', quantity: 0.5 }] }),
    };
    await expectRejectedCleanly(req);
    expect(world.spy.violations.splice(0)).toEqual([]);
  });
});

describe('headers and paths at and beyond the HTTP parser limit (16 KiB)', () => {
  it('a 12 KiB header and a 7000-character path: documented answers', async () => {
    const longHeader = { method: 'GET', path: '/client/users/m-alice/voucher-definitions', headers: { ...headers, 'x-padding': 'a'.repeat(12 * 1024) } };
    const longPath = { method: 'GET', path: `/client/users/${'m'.repeat(7000)}/voucher-definitions`, headers };
    for (const req of [longHeader, longPath]) {
      const res = await send(world.urls[0]!, req);
      expect(problemsOfAnswer(req, res)).toEqual([]);
    }
  });

  // Node's HTTP parser refuses these before the app sees them; the server's
  // clientError handler still answers in the documented shape.
  it.each([
    ['a 20 KiB header', { 'x-padding': 'a'.repeat(20 * 1024) }, '/client/users/m-alice/voucher-definitions'],
    ['a 20 KiB path', {}, `/client/users/${'m'.repeat(20 * 1024)}/voucher-definitions`],
  ])('%s: a 4xx with the common error body and the security headers', async (_name, extra, longPath) => {
    const res = await send(world.urls[0]!, { method: 'GET', path: longPath, headers: { ...headers, ...extra } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.json).toEqual({ statusCode: res.status, errorCode: expect.stringMatching(/^[A-Z_]+$/), errorMessage: expect.any(String) });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
  });

  it('a 20 KiB header on a HEAD: 431 with the headers of the body, and no body', async () => {
    const raw = await rawExchange(world.urls[0]!, `HEAD /client/users/m-alice/voucher-definitions HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    const [head, body] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/\r\nContent-Length: 105\r\n/);
    expect(body).toBe('');
  });
});

/** Writes `request` on a new connection and reads everything until the server closes it. */
function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.end(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}
