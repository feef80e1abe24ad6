import type { Request, Response } from 'express';
import { createRequestValidation } from './request-validation';
import { loadApiSpec } from './spec';

/*
 * fast-paths.test.ts runs with the cross-check on (the validator sees every
 * request too), so it would pass even if the accept-only check never
 * accepted anything. Here, as in production (no cross-check), a stub stands
 * for express-openapi-validator: each row says whether the fast check
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
  ['a plain JSON body', true, 'updateReservation', { method: 'PUT', originalUrl: reservation, params: reservationParams, headers: jsonBody('application/json'), body: { reservationAmount: 1000 } }],
  ['a JSON body with charset=utf-8', true, 'updateReservation', { method: 'PUT', originalUrl: reservation, params: reservationParams, headers: jsonBody('application/json; charset=utf-8'), body: { reservationAmount: 1000 } }],
  ['a body of another content type', false, 'updateReservation', { method: 'PUT', originalUrl: reservation, params: reservationParams, headers: jsonBody('text/plain'), body: { reservationAmount: 1000 } }],
  ['a body the schema rejects', false, 'updateReservation', { method: 'PUT', originalUrl: reservation, params: reservationParams, headers: jsonBody('application/json'), body: { reservationAmount: 'ten' } }],
  ['no body at all', false, 'updateReservation', { method: 'PUT', originalUrl: reservation, params: reservationParams, headers: {} }],
])('%s: accepted by the fast check: %s', (_name, accepted, operation, req) => {
  const validatorCalls: unknown[] = [];
  const validation = createRequestValidation(spec, (request) => void validatorCalls.push(request), { crossCheck: false });
  const next = jest.fn();
  validation.forOperation(operation)(req as Request, {} as Response, next);
  expect({ passedOn: next.mock.calls.length, toValidator: validatorCalls.length }).toEqual(accepted ? { passedOn: 1, toValidator: 0 } : { passedOn: 0, toValidator: 1 });
});
