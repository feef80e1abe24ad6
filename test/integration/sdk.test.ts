import { createLoyaltyClient, isLoyaltyRequestError } from '@loyalty/sdk';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import { eventually } from '../../server/src/test-support/time';
import { integrationFixture, keys, t0 } from '../support/fixture';

// The SDK against the real server on port 0: what partner apps get.
let server: TestApp;

beforeEach(async () => {
  server = await startTestApp({ fixture: integrationFixture, startAt: t0 });
});
afterEach(() => server.close());

const client = () => createLoyaltyClient({ baseUrl: server.baseUrl, apiKey: keys.partner, retries: 0 });

async function sessionToken(correlationId = 'm-alice'): Promise<string> {
  const session = await client().startSession({ correlationId, identifierType: 'CARD_NUMBER' });
  if (!session.data) throw new Error(`no session: ${JSON.stringify(session.error)}`);
  return session.data.sessionToken;
}

describe('@loyalty/sdk against the server', () => {
  it('goes from session to voucher list to reservation update', async () => {
    const loyalty = client();
    const session = await loyalty.startSession({ correlationId: 'm-alice', identifierType: 'CARD_NUMBER' });
    expect(session.response.status).toBe(201);
    const token = session.data!.sessionToken;

    const vouchers = await loyalty.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken: token, businessUnit: 'SDM' });
    expect(vouchers.data?.map((v) => v.voucherDefinitionId)).toEqual(['vd-0006']);

    const updated = await loyalty.updateReservation({
      correlationId: 'm-alice',
      sessionToken: token,
      reservationToken: 'rt-alice-1',
      body: { reservationAmount: 7500 },
    });
    expect(updated.error).toBeUndefined();
    expect(updated.data).toEqual({
      reservationToken: 'rt-alice-1',
      reservationDuration: 900,
      availablePointBalance: 41000,
      pointBalance: 50000,
      sessionId: session.data!.sessionId,
    });
  });

  it('surfaces the request id the server logged and echoed', async () => {
    const result = await client().listVoucherDefinitions({ correlationId: 'm-alice', sessionToken: await sessionToken() });
    expect(result.requestId).toMatch(/\S+/);
    expect(result.response.headers.get('x-request-id')).toBe(result.requestId);
  });

  it('types a documented error of Operation B', async () => {
    const result = await client().updateReservation({
      correlationId: 'm-alice',
      sessionToken: await sessionToken(),
      reservationToken: 'rt-alice-1',
      body: { reservationAmount: 10001 },
    });
    expect(result.data).toBeUndefined();
    expect(result.error).toEqual({
      statusCode: 400,
      errorCode: 'INVALID_REQUEST',
      errorMessage: 'New reservation amount cannot be greater than existing reservation amount',
    });
  });

  it('types the invalid catalogue items', async () => {
    const result = await client().updateReservation({
      correlationId: 'm-alice',
      sessionToken: await sessionToken(),
      reservationToken: 'rt-alice-1',
      body: { redemptionId: 'rd-100', redeemerId: 'm-alice', catalogueItems: [{ productCode: 'nope', quantity: 2 }] },
    });
    expect(result.error).toMatchObject({
      errorMessage: 'Invalid catalogue item(s)',
      invalidCatalogueItems: [{ productCode: 'nope', quantity: 2 }],
    });
  });

  it('answers 401 for an expired session without throwing', async () => {
    const token = await sessionToken();
    server.advance(3600);
    const result = await client().listVoucherDefinitions({ correlationId: 'm-alice', sessionToken: token });
    expect(result.response.status).toBe(401);
    expect(result.error?.errorCode).toBe('UNAUTHORIZED');
  });

  it('ends a session: 204 without data; then its token is refused, and ending it again is 401', async () => {
    const token = await sessionToken();
    const ended = await client().endSession({ correlationId: 'm-alice', sessionToken: token });
    expect(ended.response.status).toBe(204);
    expect(ended.error).toBeUndefined();
    expect(ended.data).toBeUndefined();
    expect(ended.response.headers.get('x-request-id')).toBe(ended.requestId);

    const refused = { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Invalid or expired session' };
    const listed = await client().listVoucherDefinitions({ correlationId: 'm-alice', sessionToken: token });
    expect(listed.error).toEqual(refused);
    const again = await client().endSession({ correlationId: 'm-alice', sessionToken: token });
    expect(again.error).toEqual(refused);
  });

  it("cannot end another member's session: 401, and the session goes on", async () => {
    const solos = await sessionToken('m-solo');
    const ended = await client().endSession({ correlationId: 'm-alice', sessionToken: solos });
    expect(ended.error).toMatchObject({ statusCode: 401, errorMessage: 'Invalid or expired session' });
    const listed = await client().listVoucherDefinitions({ correlationId: 'm-solo', sessionToken: solos });
    expect(listed.response.status).toBe(200);
  });

  it('rejects with a typed network error when nothing answers', async () => {
    const baseUrl = server.baseUrl;
    await server.close();
    const loyalty = createLoyaltyClient({ baseUrl, apiKey: keys.partner, retries: 0 });
    const failure = await loyalty.startSession({ correlationId: 'm-alice', identifierType: 'EMAIL' }).catch((e: unknown) => e);
    expect(isLoyaltyRequestError(failure)).toBe(true);
    server = await startTestApp({ fixture: integrationFixture, startAt: t0 });
  });

  it("runs the README's example from session to reservation update, then signs out", async () => {
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    process.env.LOYALTY_API_KEY = keys.partner;
    process.env.LOYALTY_BASE_URL = server.baseUrl;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded as `node app.js` loads it: synchronously, once per test
      jest.isolateModules(() => require('../../sdk/test/readme-example'));
      await eventually("the example's six lines", () => log.mock.calls.length >= 6 || errors.mock.calls.length > 0);
      expect(errors).not.toHaveBeenCalled();
      expect(log.mock.calls.slice(-2)).toEqual([['Reservation rt-alice-1 holds for 900 s; 41000 points available'], ['Signed out']]);
      expect(log.mock.calls.slice(0, -2).map(([line]) => String(line).split(':')[0])).toEqual([
        'vd-0000',
        'vd-0001',
        'vd-0003',
        'vd-0004',
      ]);
    } finally {
      log.mockRestore();
      errors.mockRestore();
      delete process.env.LOYALTY_API_KEY;
      delete process.env.LOYALTY_BASE_URL;
    }
  });
});
