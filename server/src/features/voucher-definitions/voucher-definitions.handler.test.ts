import { AppError, type VoucherErrorCode } from '../../domain/errors';
import { expectDocumentedBody } from '../../http/test-support/documented-response';
import { voucherSummary } from '../../http/test-support/fakes';
import { asAlice, startTestApp, type TestApp } from '../../http/test-support/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());
beforeEach(() => jest.clearAllMocks());

const list = (query = '') => app.send('GET', `/client/users/m-alice/voucher-definitions${query}`, asAlice);

describe('GET /client/users/{correlation_id}/voucher-definitions', () => {
  it('answers 200 with the flat list from the service', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.body).toEqual([voucherSummary('LCL')]);
    expect(app.services.voucherDefinitions.listVoucherDefinitions).toHaveBeenCalledWith(
      expect.objectContaining({ clientId: 'client-partner' }),
      undefined,
    );
  });

  it('answers an empty list as []', async () => {
    app.services.voucherDefinitions.listVoucherDefinitions.mockResolvedValueOnce([]);
    expect((await list()).body).toEqual([]);
  });

  it('passes businessUnit on, decoded', async () => {
    await list('?businessUnit=L%26C');
    expect(app.services.voucherDefinitions.listVoucherDefinitions).toHaveBeenCalledWith(expect.anything(), 'L&C');
  });

  it.each<[VoucherErrorCode, string]>([
    ['FEATURE_NOT_ENABLED', 'Voucher feature is not enabled for the client'],
    ['INVALID_BUSINESS_UNIT', 'Business unit is not enabled for the client'],
    ['BUSINESS_UNIT_REQUIRED', 'Business unit is required'],
  ])('the service says %s: 400 with that code', async (code, message) => {
    app.services.voucherDefinitions.listVoucherDefinitions.mockRejectedValueOnce(new AppError(code, message));
    const response = await list('?businessUnit=XYZ');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ statusCode: 400, errorCode: code, errorMessage: message });
  });

  it.each([
    ['an empty businessUnit', '?businessUnit=', "Invalid query parameter businessUnit: Empty value found for query parameter 'businessUnit'"],
    ['a repeated businessUnit', '?businessUnit=LCL&businessUnit=SDM', 'Invalid query parameter businessUnit: must be string'],
    ['a businessUnit over 64 characters', `?businessUnit=${'B'.repeat(65)}`, 'Invalid query parameter businessUnit: must NOT have more than 64 characters'],
    ['an unknown query parameter', '?channel=CUX', "Invalid query parameter channel: Unknown query parameter 'channel'"],
  ])('%s: 400 INVALID_REQUEST saying what is wrong', async (_case, query, message) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: message, details: [expect.any(Object)] });
    expectDocumentedBody('listVoucherDefinitions', 400, response.body);
    expect(app.services.voucherDefinitions.listVoucherDefinitions).not.toHaveBeenCalled();
  });

  it('checks the session before the query', async () => {
    const response = await app.send('GET', '/client/users/m-alice/voucher-definitions?businessUnit=', {});
    expect(response.status).toBe(401);
  });
});
