import type { Request, Response } from 'express';
import type { AppError } from '../domain/errors';
import { createRequestValidation, maxBodyDepth } from './request-validation';
import { loadApiSpec } from './spec';

/*
 * accept-only-check.test.ts runs with the cross-check on (the validator sees every
 * request too), so it would pass even if the accept-only check never
 * accepted anything. Here, as in production (no cross-check), a stub stands
 * for express-openapi-validator: each row says whether the accept-only check
 * accepts the request itself or hands it to the validator.
 */

const list = '/client/users/m-alice/voucher-definitions';
const reservation = '/client/users/m-alice/reservations/rt-alice-1';
const listParams = { correlation_id: 'm-alice' };
const reservationParams = { correlation_id: 'm-alice', reservation_token: 'rt-alice-1' };
const jsonBody = (contentType: string) => ({ 'content-type': contentType, 'content-length': '26' });

type Row = [name: string, accepted: boolean, operation: 'listVoucherDefinitions' | 'updateReservation', req: Partial<Request>];

let spec: Awaited<ReturnType<typeof loadApiSpec>>;
beforeAll(async () => {
  spec = await loadApiSpec();
});

it.each<Row>([
  ['a plain listing', true, 'listVoucherDefinitions', { method: 'GET', originalUrl: list, params: listParams, headers: {} }],
  ['a listing with a plain business unit', true, 'listVoucherDefinitions', { method: 'GET', originalUrl: `${list}?businessUnit=LCL`, params: listParams, headers: {} }],
  ['a repeated business unit', false, 'listVoucherDefinitions', { method: 'GET', originalUrl: `${list}?businessUnit=A&businessUnit=B`, params: listParams, headers: {} }],
  ['an unknown parameter', false, 'listVoucherDefinitions', { method: 'GET', originalUrl: `${list}?channel=CUX`, params: listParams, headers: {} }],
  ['a percent-encoded path', false, 'listVoucherDefinitions', { method: 'GET', originalUrl: '/client/users/m%2Dalice/voucher-definitions', params: listParams, headers: {} }],
  ['a HEAD (the validator answers 405)', false, 'listVoucherDefinitions', { method: 'HEAD', originalUrl: list, params: listParams, headers: {} }],
  ['a listing saying Content-Length: 0', true, 'listVoucherDefinitions', { method: 'GET', originalUrl: list, params: listParams, headers: { 'content-length': '0' } }],
  ['a listing saying Content-Length: 00 (no body either)', true, 'listVoucherDefinitions', { method: 'GET', originalUrl: list, params: listParams, headers: { 'content-length': '00' } }],
  ['a listing with a body', false, 'listVoucherDefinitions', { method: 'GET', originalUrl: list, params: listParams, headers: { 'content-length': '2' } }],
  ['a listing with a chunked body', false, 'listVoucherDefinitions', { method: 'GET', originalUrl: list, params: listParams, headers: { 'transfer-encoding': 'chunked' } }],
  ['a plain JSON body', true, 'updateReservation', { method: 'PUT', originalUrl: reservation, params: reservationParams, headers: jsonBody('application/json'), body: { reservationAmount: 1000 } }],
  ['a JSON body with charset=utf-8', true, 'updateReservation', { method: 'PUT', originalUrl: reservation, params: reservationParams, headers: jsonBody('application/json; charset=utf-8'), body: { reservationAmount: 1000 } }],
  ['a body of another content type', false, 'updateReservation', { method: 'PUT', originalUrl: reservation, params: reservationParams, headers: jsonBody('text/plain'), body: { reservationAmount: 1000 } }],
  ['a body the schema rejects', false, 'updateReservation', { method: 'PUT', originalUrl: reservation, params: reservationParams, headers: jsonBody('application/json'), body: { reservationAmount: 'ten' } }],
  ['no body at all', false, 'updateReservation', { method: 'PUT', originalUrl: reservation, params: reservationParams, headers: {} }],
])('%s: accepted by the accept-only check: %s', (_name, accepted, operation, req) => {
  const validatorCalls: unknown[] = [];
  const validation = createRequestValidation(spec, (request) => void validatorCalls.push(request), { crossCheck: false });
  const next = jest.fn();
  validation.forOperation(operation)(req as Request, {} as Response, next);
  expect({ passedOn: next.mock.calls.length, toValidator: validatorCalls.length }).toEqual(accepted ? { passedOn: 1, toValidator: 0 } : { passedOn: 0, toValidator: 1 });
});

describe('the answer to a request the accept-only check does not accept', () => {
  const reservationRequest = (body: unknown) =>
    ({ method: 'PUT', originalUrl: reservation, params: reservationParams, headers: jsonBody('application/json'), body }) as Partial<Request> as Request;
  const eovRefusal = new Error('refused by the validator');
  const ownAnswer = new Error("the operation's own answer");

  /** Runs the validation of Operation B on `body`, the validator refusing it; what `next` got, and who was asked. */
  async function answerTo(body: unknown, own: Error | null) {
    const asked: string[] = [];
    const validation = createRequestValidation(spec, (_req, _res, next) => {
      asked.push('validator');
      next(eovRefusal);
    }, { crossCheck: false });
    const answerRefusedBody = async (refused: unknown) => {
      asked.push('operation');
      expect(refused).toBe(body);
      return own;
    };
    const passedOn = await new Promise<unknown>((resolve) => validation.forOperation('updateReservation', answerRefusedBody)(reservationRequest(body), {} as Response, resolve));
    return { passedOn, asked };
  }

  it("is the operation's own answer to the refused body, when it has one", async () => {
    expect(await answerTo({ reservationAmount: 'ten' }, ownAnswer)).toEqual({ passedOn: ownAnswer, asked: ['validator', 'operation'] });
  });

  it("is the validator's, when the operation has no answer of its own", async () => {
    expect(await answerTo({ reservationAmount: 'ten' }, null)).toEqual({ passedOn: eovRefusal, asked: ['validator', 'operation'] });
  });

  it('never asks either for a request the accept-only check accepts', async () => {
    expect(await answerTo({ reservationAmount: 10 }, ownAnswer)).toEqual({ passedOn: undefined, asked: [] });
  });

  it('is a schema error, before the validator walks it, for a body nested deeper than any document of the spec', async () => {
    let deep: unknown = 1;
    for (let level = 0; level < 5000; level++) deep = [deep];
    const { passedOn, asked } = await answerTo({ reservationAmount: 1, channel: deep }, ownAnswer);
    expect(asked).toEqual([]);
    expect((passedOn as AppError).toBody()).toEqual({
      statusCode: 400,
      errorCode: 'INVALID_REQUEST',
      errorMessage: 'Request does not match the API specification',
      details: [{ path: '/body', message: `must not nest deeper than ${maxBodyDepth} levels` }],
    });
  });
});
