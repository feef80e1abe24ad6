// The spec's types, generated from openapi/openapi.yaml (`@loyalty/openapi`, the one generated file the server and the SDK share).
import type { components } from '@loyalty/openapi';

type Schemas = components['schemas'];
export type ReservationErrorMessage = Schemas['ReservationUpdateErrorMessage'];
export type VoucherErrorCode = Schemas['VoucherDefinitionsErrorCode'];
export type UnauthorizedMessage = Schemas['UnauthorizedErrorMessage'];
export type ForbiddenMessage = Schemas['ForbiddenErrorMessage'];
type SchemaErrorMessage = Schemas['InvalidRequestError']['errorMessage'];

/** Stable error codes of the API, each with its HTTP status. */
export const errorStatus = {
  INVALID_REQUEST: 400,
  INVALID_BUSINESS_UNIT: 400,
  BUSINESS_UNIT_REQUIRED: 400,
  FEATURE_NOT_ENABLED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  MEMBER_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  REQUEST_HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;
export type ErrorCode = keyof typeof errorStatus;

/** Extra fields of an error body beyond statusCode, errorCode and errorMessage. */
export interface ErrorExtras {
  invalidCatalogueItems?: unknown[];
  details?: { path: string; message: string }[];
}

/**
 * The one error type of the service: a stable code, its HTTP status and a
 * message safe to show to clients. The error middleware renders it as the
 * spec's error body; anything else thrown becomes a 500 INTERNAL_ERROR.
 */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extras: ErrorExtras = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = errorStatus[code];
  }

  toBody(): { statusCode: number; errorCode: ErrorCode; errorMessage: string } & ErrorExtras {
    return { statusCode: this.status, errorCode: this.code, errorMessage: this.message, ...this.extras };
  }
}

/** A 400 of Operation B: its message is one of the spec's enum. */
export function reservationError(message: ReservationErrorMessage, extras?: ErrorExtras): AppError {
  return new AppError('INVALID_REQUEST', message, extras);
}

/** The one wording of a schema error, on every operation (the spec's `InvalidRequestError`). */
export const schemaErrorMessage: SchemaErrorMessage = 'Request does not match the API specification';

/** A request that breaks the schema: `details` says where and what, when known. */
export function schemaError(...details: { path: string; message: string }[]): AppError {
  return new AppError('INVALID_REQUEST', schemaErrorMessage, details.length > 0 ? { details } : {});
}

/** The spec's 401 messages: each names what to fix, none whose a token is. */
export const unauthorizedMessages = {
  apiKey: 'Missing or unknown API key',
  missingSession: 'Missing session: send Authorization: Bearer <sessionToken>',
  invalidSession: 'Invalid or expired session',
} as const satisfies Record<string, UnauthorizedMessage>;

export const unauthorized = (message: UnauthorizedMessage): AppError => new AppError('UNAUTHORIZED', message);

/** The spec's 403 messages: each says what to do instead. */
export const forbiddenMessages = {
  publishableStartsSession: "Sessions are started by the partner's server with a secret key, never with a publishable key",
  publishableOrigin: 'A publishable key works only from a page on one of its origins',
  secretFromPage: 'Secret keys must not be sent from a web page: use a publishable key there',
} as const satisfies Record<string, ForbiddenMessage>;

export const forbidden = (message: ForbiddenMessage): AppError => new AppError('FORBIDDEN', message);

/** The store cannot answer now (down, or too many conflicting writes): 503. */
export const serviceUnavailable = (): AppError => new AppError('SERVICE_UNAVAILABLE', 'Service unavailable');
