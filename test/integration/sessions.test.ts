import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import type { ApiClient } from '../../server/src/test-support/api-client';
import { integrationFixture, keys, t0 } from '../support/fixture';

let server: TestApp;
let api: ApiClient;

beforeAll(async () => {
  server = await startTestApp({ fixture: integrationFixture, startAt: t0 });
  api = server.api;
});
afterAll(() => server.close());

const sessionPath = '/client/users/m-alice/sessions';

describe('Start Session', () => {
  it.each(['CARD_NUMBER', 'EMAIL', 'PHONE_NUMBER', 'MEMBER_ID'])('starts a %s session', async (identifierType) => {
    const response = await api.call('POST', sessionPath, {
      apiKey: keys.partner,
      headers: { 'x-identifier-type': identifierType },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      // Sealed (st2.<kid>.<nonce, ciphertext, tag>): see sign-out.test.ts.
      sessionToken: expect.stringMatching(/^st2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{60,}$/),
      sessionId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      identifierType,
      // the client's sessionTtlSeconds is 3600
      expiresAt: new Date(t0 + 3600_000).toISOString(),
    });
  });

  it('gives a new random token and id every time', async () => {
    const bodies = await Promise.all(
      [1, 2, 3].map(() =>
        api.call('POST', sessionPath, { apiKey: keys.partner, headers: { 'x-identifier-type': 'EMAIL' } }),
      ),
    );
    expect(new Set(bodies.map((b) => b.body.sessionToken)).size).toBe(3);
    expect(new Set(bodies.map((b) => b.body.sessionId)).size).toBe(3);
  });

  it.each([
    ['an unknown identifier type', { 'x-identifier-type': 'PASSPORT' }],
    ['a lower-case identifier type', { 'x-identifier-type': 'card_number' }],
    ['no identifier type', {}],
  ])('answers 400 INVALID_REQUEST for %s', async (_name, headers) => {
    const response = await api.call('POST', sessionPath, { apiKey: keys.partner, headers });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, errorCode: 'INVALID_REQUEST' });
  });

  it('answers 404 MEMBER_NOT_FOUND for an unknown member', async () => {
    const response = await api.call('POST', '/client/users/m-nobody/sessions', {
      apiKey: keys.partner,
      headers: { 'x-identifier-type': 'EMAIL' },
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ statusCode: 404, errorCode: 'MEMBER_NOT_FOUND', errorMessage: 'Member not found' });
  });

  it.each([
    ['no API key', undefined],
    ['an unknown API key', 'pk_unknown_key_000'],
    ['a key differing in one character', `${keys.partner.slice(0, -1)}2`],
  ])('answers 401 UNAUTHORIZED with %s', async (_name, apiKey) => {
    const response = await api.call('POST', sessionPath, { apiKey, headers: { 'x-identifier-type': 'EMAIL' } });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(unauthorized('Missing or unknown API key'));
  });
});

describe('sessions guard Operations A and B', () => {
  const operations = [
    ['Operation A', (token?: string, key: string = keys.partner, member = 'm-alice') => api.listVouchers(key, token as string, member)],
    [
      'Operation B',
      (token?: string, key: string = keys.partner, member = 'm-alice') =>
        api.updateReservation(key, token as string, member, 'rt-alice-1', { reservationAmount: 10000 }),
    ],
  ] as const;

  // Every session failure but a missing one reads the same: the answer never says whose a token is.
  const invalid = unauthorized('Invalid or expired session');

  it.each(operations)('%s answers 401 without a session, saying how to send one', async (_name, run) => {
    const response = await run(undefined);
    expect(response.status).toBe(401);
    expect(response.body).toEqual(unauthorized('Missing session: send Authorization: Bearer <sessionToken>'));
  });

  it.each(operations)('%s answers 401 with a token that is no session', async (_name, run) => {
    const response = await run('st_not_a_real_session_token_at_all');
    expect(response.status).toBe(401);
    expect(response.body).toEqual(invalid);
  });

  it.each(operations)("%s answers 401 with another member's session", async (_name, run) => {
    const token = await api.startSession(keys.partner, 'm-hh-1');
    const response = await run(token);
    expect(response.status).toBe(401);
    expect(response.body).toEqual(invalid);
  });

  it.each(operations)("%s answers 401 with another client's session", async (_name, run) => {
    const token = await api.startSession(keys.tiered, 'm-alice');
    const response = await run(token);
    expect(response.status).toBe(401);
    expect(response.body).toEqual(invalid);
  });

  it.each(operations)('%s answers 401 with a valid session but no API key', async (_name, run) => {
    const token = await api.startSession(keys.partner, 'm-alice');
    const response = await run(token, '');
    expect(response.status).toBe(401);
    expect(response.body).toEqual(unauthorized('Missing or unknown API key'));
  });

  it.each(operations)('%s answers 401 once the session has expired', async (_name, run) => {
    const token = await api.startSession(keys.partner, 'm-alice');
    expect((await run(token)).status).toBe(200);
    server.advance(3600);
    try {
      const response = await run(token);
      expect(response.status).toBe(401);
      expect(response.body).toEqual(invalid);
    } finally {
      server.advance(-3600);
    }
  });
});

function unauthorized(errorMessage: string) {
  return { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage };
}
