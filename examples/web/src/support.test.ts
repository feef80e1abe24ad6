import { LoyaltyRequestError } from '@loyalty/sdk';
import { answerRecord, memberMessage, noAnswerRecord, supportText, type CallError } from './support';

const at = new Date('2026-11-26T10:15:00.000Z');

describe('memberMessage', () => {
  it.each<[CallError, string]>([
    [{ statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Invalid or expired session' }, 'Your session has ended: please sign in again.'],
    [{ statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Missing or unknown API key' }, 'This app cannot reach the loyalty program right now.'],
    [{ statusCode: 404, errorCode: 'MEMBER_NOT_FOUND', errorMessage: 'Member not found' }, 'We could not find this loyalty account.'],
    [
      { statusCode: 403, errorCode: 'FORBIDDEN', errorMessage: "Sessions are started by the partner's server with a secret key, never with a publishable key" },
      'This page is not allowed to do that.',
    ],
    [{ statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: 'New reservation amount cannot be greater than existing reservation amount' }, 'A reservation can only go down.'],
    [{ statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: 'Insufficient points balance' }, 'That change was not accepted.'],
    [{ statusCode: 400, errorCode: 'FEATURE_NOT_ENABLED', errorMessage: 'Voucher feature is not enabled for the client' }, 'Vouchers are not available in this store.'],
    [{ statusCode: 429, errorCode: 'TOO_MANY_REQUESTS', errorMessage: 'Too many requests' }, 'Too many requests right now: please try again in a minute.'],
    [{ statusCode: 503, errorCode: 'SERVICE_UNAVAILABLE', errorMessage: 'Service unavailable' }, 'The loyalty program is busy: please try again shortly.'],
    [{ statusCode: 502, errorCode: 'UNEXPECTED_RESPONSE', errorMessage: 'HTTP 502', body: '<html>' }, 'This app and the loyalty program did not understand each other.'],
  ])('%j: %s', (error, message) => {
    expect(memberMessage(error)).toBe(message);
  });
});

describe('support records', () => {
  it('of an error answer: the call, the time, the status and code, the message, the details and the request id', () => {
    const error: CallError = {
      statusCode: 400,
      errorCode: 'INVALID_REQUEST',
      errorMessage: 'Request does not match the API specification',
      details: [{ path: '/body/reservationAmount', message: 'must be >= 0' }],
    };
    const record = answerRecord('updateReservation', error, new Response(null, { status: 400 }), 'req-1', at);
    expect(supportText(record)).toBe(
      [
        'Request id: req-1',
        'Call: updateReservation',
        'When (UTC): 2026-11-26T10:15:00.000Z',
        'Answer: HTTP 400 INVALID_REQUEST',
        'Message: Request does not match the API specification',
        'Detail: /body/reservationAmount: must be >= 0',
      ].join('\n'),
    );
  });

  it('of a call without an answer: why, after how many attempts, and the request id sent', () => {
    const error = new LoyaltyRequestError({ reason: 'network', method: 'GET', url: 'http://api/x', requestId: 'req-2', attempts: 3, timeoutMs: 10_000, cause: new TypeError('Failed to fetch') });
    expect(noAnswerRecord('listVoucherDefinitions', error, at)).toEqual({
      call: 'listVoucherDefinitions',
      at: '2026-11-26T10:15:00.000Z',
      outcome: 'no answer (network, 3 attempts)',
      message: 'GET request failed: network error (3 attempts, request id req-2)',
      details: [],
      requestId: 'req-2',
    });
  });
});
