import { error as validatorErrors } from 'express-openapi-validator';
import { AppError, serviceUnavailable } from '../domain/errors';
import { StoreUnavailableError } from '../store/port';
import { renderError } from './error-rendering';

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
  it.each<[string, unknown, number, Record<string, unknown>]>([
    ['an AppError as its own body', new AppError('MEMBER_NOT_FOUND', 'Member not found'), 404, { errorCode: 'MEMBER_NOT_FOUND', errorMessage: 'Member not found' }],
    ['a store outage as 503', new StoreUnavailableError('connection refused to 10.0.0.7'), 503, { errorCode: 'SERVICE_UNAVAILABLE', errorMessage: 'Service unavailable' }],
    ['an unexpected error as a bare 500', new TypeError("Cannot read properties of undefined (reading 'x')"), 500, { errorCode: 'INTERNAL_ERROR', errorMessage: 'Internal error' }],
    ['a thrown string as a bare 500', 'boom', 500, { errorCode: 'INTERNAL_ERROR', errorMessage: 'Internal error' }],
    ['malformed JSON', bodyParserError('entity.parse.failed'), 400, { errorCode: 'INVALID_REQUEST', errorMessage: 'Malformed JSON in request body' }],
    ['a body over the limit', bodyParserError('entity.too.large', 'request entity too large'), 413, { errorCode: 'PAYLOAD_TOO_LARGE' }],
    ['an unsupported charset', bodyParserError('charset.unsupported', 'unsupported charset "LATIN1"'), 415, { errorCode: 'UNSUPPORTED_MEDIA_TYPE' }],
    ['an unsupported content encoding', bodyParserError('encoding.unsupported', 'unsupported content encoding "x"'), 415, { errorCode: 'UNSUPPORTED_MEDIA_TYPE' }],
    ['a body shorter than its Content-Length', bodyParserError('request.size.invalid'), 400, { errorMessage: 'Request does not match the API specification' }],
    ['an unknown body-parser failure as 500', bodyParserError('stream.not.readable'), 500, { errorCode: 'INTERNAL_ERROR' }],
    ['a schema error in the one wording of every operation', badHeader, 400, { errorCode: 'INVALID_REQUEST', errorMessage: 'Request does not match the API specification' }],
    ['a validator 404', new validatorErrors.NotFound({ path: '/client/x', message: 'not found' }), 404, { errorCode: 'NOT_FOUND' }],
    ['a validator 415', new validatorErrors.UnsupportedMediaType({ path: '/client/x', message: 'unsupported media type text/plain' }), 415, { errorMessage: 'Content-Type must be application/json' }],
    ['a validator 500 (a response breaking the spec)', new validatorErrors.InternalServerError({ path: '/client/x', message: '/response/0 must be object' }), 500, { errorMessage: 'Internal error' }],
    ['an undocumented validator status as 500', new validatorErrors.NotAcceptable({ path: '/client/x', message: 'not acceptable' }), 500, { errorCode: 'INTERNAL_ERROR' }],
    ['a path with broken percent-encoding', Object.assign(new URIError('URI malformed'), { status: 400 }), 400, { errorCode: 'INVALID_REQUEST' }],
  ])('renders %s', (_name, thrown, status, expected) => {
    const { error } = renderError(thrown);
    expect(error.status).toBe(status);
    expect(error.toBody()).toMatchObject({ statusCode: status, ...expected });
  });

  it('lists the validator errors as details, path and message only', () => {
    expect(renderError(badHeader).error.extras.details).toEqual([
      { path: '/headers/x-identifier-type', message: 'must be equal to one of the allowed values' },
    ]);
  });

  it('copies the Allow header of a 405', () => {
    const thrown = new validatorErrors.MethodNotAllowed({ path: '/client/x', message: 'DELETE method not allowed', headers: { Allow: 'PUT' } });
    expect(renderError(thrown)).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' }, headers: { Allow: 'PUT' } });
  });

  it.each<[string, unknown]>([
    ['a store outage', new StoreUnavailableError()],
    ["a service's own 503 (a member being moved, a wallet too busy)", serviceUnavailable()],
  ])('asks clients to retry %s after a second', (_name, thrown) => {
    expect(renderError(thrown)).toMatchObject({ error: { status: 503 }, headers: { 'Retry-After': '1' }, log: true });
  });

  it.each<[string, unknown, boolean]>([
    ['an unexpected error', new Error('x'), true],
    ['a store outage', new StoreUnavailableError(), true],
    ['a client error', new AppError('INVALID_REQUEST', 'Invalid tier amount'), false],
    ['malformed JSON', bodyParserError('entity.parse.failed'), false],
  ])('has the access log carry %s: %p', (_name, thrown, logged) => {
    expect(renderError(thrown).log).toBe(logged);
  });
});
