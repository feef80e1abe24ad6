import { AppError } from '../../domain/errors';
import { StoreUnavailableError } from '../../store/port';
import { expectDocumentedBody } from '../../test-support/documented-response';
import { aliceSession, aliceToken, startFakeApp, type FakeApp } from '../../test-support/fake-services';

let app: FakeApp;
beforeAll(async () => {
  app = await startFakeApp();
});
afterAll(() => app.close());
beforeEach(() => jest.clearAllMocks());

const start = (identifierType: string | null, correlationId = 'm-alice') =>
  app.send('POST', `/client/users/${correlationId}/sessions`, {
    headers: identifierType === null ? {} : { 'x-identifier-type': identifierType },
  });

describe('POST /client/users/{correlation_id}/sessions', () => {
  it.each(['CARD_NUMBER', 'EMAIL', 'PHONE_NUMBER', 'MEMBER_ID'])('starts a %s session: 201 with the session', async (identifierType) => {
    const response = await start(identifierType);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      sessionToken: aliceToken,
      sessionId: aliceSession.sessionId,
      identifierType,
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
    expect(app.services.sessions.startSession).toHaveBeenCalledWith(
      expect.objectContaining({ clientId: 'client-partner' }),
      // The key the request authenticated with: the session ends with it.
      'key_client-partner',
      'm-alice',
      identifierType,
    );
  });

  it('tells caches not to keep the session token', async () => {
    expect((await start('EMAIL')).headers.get('cache-control')).toBe('no-store');
  });

  it('needs no member session', async () => {
    await start('EMAIL');
    expect(app.services.auth.authenticateSession).not.toHaveBeenCalled();
  });

  it.each<[string, string | null, string]>([
    ['no identifier type', null, "must have required property 'x-identifier-type'"],
    ['an unknown identifier type', 'PASSPORT', 'must be equal to one of the allowed values: CARD_NUMBER, EMAIL, PHONE_NUMBER, MEMBER_ID'],
    ['a lower-case identifier type', 'card_number', 'must be equal to one of the allowed values: CARD_NUMBER, EMAIL, PHONE_NUMBER, MEMBER_ID'],
  ])('%s: 400 INVALID_REQUEST, details saying what is wrong', async (_case, identifierType, detail) => {
    const response = await start(identifierType);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      statusCode: 400,
      errorCode: 'INVALID_REQUEST',
      errorMessage: 'Request does not match the API specification',
      details: [{ path: '/headers/x-identifier-type', message: detail }],
    });
    expectDocumentedBody('startSession', 400, response.body);
    expect(app.services.sessions.startSession).not.toHaveBeenCalled();
  });

  it('a correlation id over 128 characters: 400 on the path parameter', async () => {
    const response = await start('EMAIL', 'm'.repeat(129));
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([{ path: '/params/correlation_id', message: 'must NOT have more than 128 characters' }]);
    expectDocumentedBody('startSession', 400, response.body);
  });

  it('an unknown member: the service says 404 MEMBER_NOT_FOUND', async () => {
    app.services.sessions.startSession.mockRejectedValueOnce(new AppError('MEMBER_NOT_FOUND', 'Member not found'));
    const response = await start('EMAIL', 'm-nobody');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ statusCode: 404, errorCode: 'MEMBER_NOT_FOUND', errorMessage: 'Member not found' });
  });

  it('the store is down: 503', async () => {
    app.services.sessions.startSession.mockRejectedValueOnce(new StoreUnavailableError());
    expect((await start('EMAIL')).status).toBe(503);
  });
});
