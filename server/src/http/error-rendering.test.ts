import { error as validatorErrors } from 'express-openapi-validator';
import { AppError } from '../domain/errors';
import { StoreUnavailableError } from '../store/port';
import { renderError } from './error-rendering';
import type { OperationId } from './routes';

/** An error as body-parser raises it: a message for developers, a stable `type`. */
function bodyParserError(type: string, message = 'Unexpected token } in JSON at position 7'): Error {
  return Object.assign(new Error(message), { type, status: 400 });
}

const badHeader = new validatorErrors.BadRequest({
  path: '/client/users/m-alice/sessions',
  message: 'bad',
  errors: [{ path: '/headers/x-identifier-type', message: 'must be equal to one of the allowed values', errorCode: 'enum.openapi.validation' }],
});

describe('renderError', () => {
  it.each<[string, unknown, OperationId | null, number, Record<string, unknown>]>([
    ['an AppError as its own body', new AppError('MEMBER_NOT_FOUND', 'Member not found'), 'startSession', 404, { errorCode: 'MEMBER_NOT_FOUND', errorMessage: 'Member not found' }],
    ['a store outage as 503', new StoreUnavailableError('connection refused to 10.0.0.7'), 'listVoucherDefinitions', 503, { errorCode: 'SERVICE_UNAVAILABLE', errorMessage: 'Service unavailable' }],
    ['an unexpected error as a bare 500', new TypeError("Cannot read properties of undefined (reading 'x')"), 'updateReservation', 500, { errorCode: 'INTERNAL_ERROR', errorMessage: 'Internal error' }],
    ['a thrown string as a bare 500', 'boom', null, 500, { errorCode: 'INTERNAL_ERROR', errorMessage: 'Internal error' }],
    ['malformed JSON', bodyParserError('entity.parse.failed'), 'updateReservation', 400, { errorCode: 'INVALID_REQUEST', errorMessage: 'Malformed JSON in request body' }],
    ['a body over the limit', bodyParserError('entity.too.large', 'request entity too large'), 'updateReservation', 413, { errorCode: 'PAYLOAD_TOO_LARGE' }],
    ['an unsupported charset', bodyParserError('charset.unsupported', 'unsupported charset "LATIN1"'), 'updateReservation', 415, { errorCode: 'UNSUPPORTED_MEDIA_TYPE' }],
    ['an unsupported content encoding', bodyParserError('encoding.unsupported', 'unsupported content encoding "x"'), 'updateReservation', 415, { errorCode: 'UNSUPPORTED_MEDIA_TYPE' }],
    ['a body shorter than its Content-Length', bodyParserError('request.size.invalid'), 'updateReservation', 400, { errorMessage: 'Request does not match the API specification' }],
    ['an unknown body-parser failure as 500', bodyParserError('stream.not.readable'), 'updateReservation', 500, { errorCode: 'INTERNAL_ERROR' }],
    ['a bad header of Start Session, in words', badHeader, 'startSession', 400, { errorCode: 'INVALID_REQUEST', errorMessage: 'Invalid header x-identifier-type: must be equal to one of the allowed values' }],
    ['a schema error of Operation B with its enum message', badHeader, 'updateReservation', 400, { errorMessage: 'Request does not match the API specification' }],
    ['a validator 404', new validatorErrors.NotFound({ path: '/client/x', message: 'not found' }), null, 404, { errorCode: 'NOT_FOUND' }],
    ['a validator 415', new validatorErrors.UnsupportedMediaType({ path: '/client/x', message: 'unsupported media type text/plain' }), 'updateReservation', 415, { errorMessage: 'Content-Type must be application/json' }],
    ['a validator 500 (a response breaking the spec)', new validatorErrors.InternalServerError({ path: '/client/x', message: '/response/0 must be object' }), 'listVoucherDefinitions', 500, { errorMessage: 'Internal error' }],
    ['an undocumented validator status as 500', new validatorErrors.NotAcceptable({ path: '/client/x', message: 'not acceptable' }), 'listVoucherDefinitions', 500, { errorCode: 'INTERNAL_ERROR' }],
    ['a path with broken percent-encoding', Object.assign(new URIError('URI malformed'), { status: 400 }), 'listVoucherDefinitions', 400, { errorCode: 'INVALID_REQUEST' }],
  ])('renders %s', (_name, thrown, operation, status, expected) => {
    const { error } = renderError(thrown, operation);
    expect(error.status).toBe(status);
    expect(error.toBody()).toMatchObject({ statusCode: status, ...expected });
  });

  it('lists the validator errors as details, path and message only', () => {
    expect(renderError(badHeader, 'startSession').error.extras.details).toEqual([
      { path: '/headers/x-identifier-type', message: 'must be equal to one of the allowed values' },
    ]);
  });

  it('copies the Allow header of a 405', () => {
    const thrown = new validatorErrors.MethodNotAllowed({ path: '/client/x', message: 'DELETE method not allowed', headers: { Allow: 'PUT' } });
    expect(renderError(thrown, null)).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' }, headers: { Allow: 'PUT' } });
  });

  it('asks clients to retry a 503 after a second', () => {
    expect(renderError(new StoreUnavailableError(), null).headers).toEqual({ 'Retry-After': '1' });
  });

  it.each<[string, unknown, boolean]>([
    ['an unexpected error', new Error('x'), true],
    ['a store outage', new StoreUnavailableError(), true],
    ['a client error', new AppError('INVALID_REQUEST', 'Invalid tier amount'), false],
    ['malformed JSON', bodyParserError('entity.parse.failed'), false],
  ])('has the access log carry %s: %p', (_name, thrown, logged) => {
    expect(renderError(thrown, null).log).toBe(logged);
  });
});
