/**
 * Public names for the generated types. Everything here is derived from
 * `@loyalty/openapi` (openapi/schema.d.ts, generated from openapi.yaml); nothing
 * about paths, parameters or bodies is written by hand, so a spec change shows
 * up here as a type error instead of a silent drift.
 */
import type { FetchResponse } from 'openapi-fetch';
import type { components, operations } from '@loyalty/openapi';

type Schemas = components['schemas'];

// Resources
export type IdentifierType = Schemas['IdentifierType'];
export type Session = Schemas['Session'];
export type VoucherDefinitionSummary = Schemas['VoucherDefinitionSummary'];
export type RewardMetadata = Schemas['RewardMetadata'];
export type ExpiryRule = Schemas['ExpiryRule'];
export type Creative = Schemas['Creative'];
export type ReservationUpdateRequest = Schemas['ReservationUpdateRequest'];
export type ReservationUpdateResponse = Schemas['ReservationUpdateResponse'];
export type CatalogueItem = Schemas['CatalogueItem'];
export type CatalogueItemData = Schemas['CatalogueItemData'];
export type CatalogueItemMessages = Schemas['CatalogueItemMessages'];
export type Household = Schemas['Household'];

// Error bodies
export type ErrorDetail = Schemas['ErrorDetail'];
export type InvalidCatalogueItem = Schemas['InvalidCatalogueItem'];
export type ReservationUpdateErrorMessage = Schemas['ReservationUpdateErrorMessage'];
export type ReservationUpdateError = Schemas['ReservationUpdateError'];
export type VoucherDefinitionsErrorCode = Schemas['VoucherDefinitionsErrorCode'];
export type VoucherDefinitionsError = Schemas['VoucherDefinitionsError'];
export type InvalidRequestError = Schemas['InvalidRequestError'];
export type UnauthorizedErrorMessage = Schemas['UnauthorizedErrorMessage'];
export type UnauthorizedError = Schemas['UnauthorizedError'];
export type ForbiddenErrorMessage = Schemas['ForbiddenErrorMessage'];
export type ForbiddenError = Schemas['ForbiddenError'];
export type MemberNotFoundError = Schemas['MemberNotFoundError'];
export type PayloadTooLargeError = Schemas['PayloadTooLargeError'];
export type UnsupportedMediaTypeError = Schemas['UnsupportedMediaTypeError'];
export type TooManyRequestsError = Schemas['TooManyRequestsError'];
export type InternalError = Schemas['InternalError'];
export type ServiceUnavailableError = Schemas['ServiceUnavailableError'];

/**
 * The error body the SDK hands back when a non-2xx answer is not one of the
 * API's error bodies: an HTML page from a proxy, an empty 502, a 404 from a
 * wrong `baseUrl`. openapi-fetch would give a string or `undefined` there
 * while typing it as the documented body; the SDK replaces it with this, so
 * `error` is always an object and its type tells the truth.
 */
export interface UnexpectedResponseError {
  /** The HTTP status of the answer. */
  statusCode: number;
  errorCode: 'UNEXPECTED_RESPONSE';
  errorMessage: string;
  /** The start of the body as received (at most 1,000 characters). */
  body: string;
}

export type OperationId = keyof operations;

// openapi-fetch's own result type for an operation, as `client.raw` returns it.
type RawResponse<Op extends OperationId> = FetchResponse<operations[Op], Record<never, never>, `${string}/${string}`>;

/**
 * The success body of an operation; `undefined` for one whose success has
 * no body (`endSession`'s `204`), so that its `data` is typed as it comes.
 */
export type SuccessBody<Op extends OperationId> = [NonNullable<RawResponse<Op>['data']>] extends [never] ? undefined : NonNullable<RawResponse<Op>['data']>;

/**
 * Every error body an operation can answer with: the spec's bodies for its
 * documented statuses, plus {@link UnexpectedResponseError}. Discriminate on
 * `errorCode`: each documented code belongs to one body, so narrowing on it
 * gives, for example, the literal union of Operation B's messages.
 */
export type ErrorBody<Op extends OperationId> = NonNullable<RawResponse<Op>['error']> | UnexpectedResponseError;

export type StartSessionError = ErrorBody<'startSession'>;
export type ListVoucherDefinitionsError = ErrorBody<'listVoucherDefinitions'>;
export type UpdateReservationError = ErrorBody<'updateReservation'>;
export type EndSessionError = ErrorBody<'endSession'>;

/**
 * What every SDK call resolves to: openapi-fetch's `{ data, error, response }`
 * plus the request id sent in `X-Request-Id`. `error` is set exactly when the
 * call failed: decide on it or on `response.ok`. Without an error, `data` is
 * the body, but for `endSession`, whose success has none (`undefined`).
 */
export type LoyaltyResponse<Op extends OperationId> =
  | { data: SuccessBody<Op>; error?: never; response: Response; requestId: string }
  | { data?: never; error: ErrorBody<Op>; response: Response; requestId: string };
