import type { EndSessionError, ListVoucherDefinitionsError, LoyaltyRequestError, StartSessionError, UpdateReservationError } from '@loyalty/sdk';

/** Every error body the SDK's four calls can hand back, the SDK's own `UNEXPECTED_RESPONSE` included. */
export type CallError = StartSessionError | ListVoucherDefinitionsError | UpdateReservationError | EndSessionError;

/**
 * What the member reads: one sentence per documented `errorCode`. The switch
 * has no default, so an error code added to the spec (and so to the SDK's
 * types) fails to compile here until it has its sentence.
 */
export function memberMessage(error: CallError): string {
  switch (error.errorCode) {
    case 'UNAUTHORIZED':
      return error.errorMessage === 'Missing or unknown API key' ? 'This app cannot reach the loyalty program right now.' : 'Your session has ended: please sign in again.';
    case 'FORBIDDEN':
      return 'This page is not allowed to do that.';
    case 'MEMBER_NOT_FOUND':
      return 'We could not find this loyalty account.';
    case 'INVALID_REQUEST':
      return error.errorMessage === 'New reservation amount cannot be greater than existing reservation amount'
        ? 'A reservation can only go down.'
        : 'That change was not accepted.';
    case 'INVALID_BUSINESS_UNIT':
    case 'BUSINESS_UNIT_REQUIRED':
    case 'FEATURE_NOT_ENABLED':
      return 'Vouchers are not available in this store.';
    case 'TOO_MANY_REQUESTS':
      return 'Too many requests right now: please try again in a minute.';
    case 'SERVICE_UNAVAILABLE':
      return 'The loyalty program is busy: please try again shortly.';
    case 'INTERNAL_ERROR':
      return 'Something went wrong on our side.';
    case 'REQUEST_HEADERS_TOO_LARGE':
    case 'PAYLOAD_TOO_LARGE':
    case 'UNSUPPORTED_MEDIA_TYPE':
    case 'UNEXPECTED_RESPONSE':
      return 'This app and the loyalty program did not understand each other.';
  }
}

/** What a support desk needs to find a failed call in the API's logs. */
export interface SupportRecord {
  /** The SDK call, such as `updateReservation`. */
  call: string;
  /** When it failed, ISO 8601 in UTC. */
  at: string;
  /** `HTTP 400 INVALID_REQUEST`, or why no answer came. */
  outcome: string;
  /** The API's `errorMessage`, or the SDK's. */
  message: string;
  /** The spec's `details` of a request that broke the schema. */
  details: string[];
  /** The `X-Request-Id` the call sent: the key to the API's logs. */
  requestId: string;
}

/** A support record of an error answer. */
export function answerRecord(call: string, error: CallError, response: Response, requestId: string, at: Date): SupportRecord {
  const details = 'details' in error && Array.isArray(error.details) ? error.details.map((detail) => `${detail.path}: ${detail.message}`) : [];
  return { call, at: at.toISOString(), outcome: `HTTP ${response.status} ${error.errorCode}`, message: error.errorMessage, details, requestId };
}

/** A support record of a call that got no answer (the SDK's `LoyaltyRequestError`). */
export function noAnswerRecord(call: string, error: LoyaltyRequestError, at: Date): SupportRecord {
  const attempts = `${error.attempts} attempt${error.attempts === 1 ? '' : 's'}`;
  return { call, at: at.toISOString(), outcome: `no answer (${error.reason}, ${attempts})`, message: error.message, details: [], requestId: error.requestId ?? 'none sent' };
}

/** The record as text to paste into a ticket. */
export function supportText(record: SupportRecord): string {
  return [
    `Request id: ${record.requestId}`,
    `Call: ${record.call}`,
    `When (UTC): ${record.at}`,
    `Answer: ${record.outcome}`,
    `Message: ${record.message}`,
    ...record.details.map((detail) => `Detail: ${detail}`),
  ].join('\n');
}
