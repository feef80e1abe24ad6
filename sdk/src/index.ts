/**
 * @loyalty/sdk: typed client of the loyalty member API.
 *
 * Calls resolve to openapi-fetch's `{ data, error, response }` plus the
 * `requestId` they sent; they never throw on an HTTP status. They reject only
 * when no answer came from the API: a {@link LoyaltyRequestError} says why.
 */
export { createLoyaltyClient } from './client';
export type {
  CallOptions,
  EndSessionArgs,
  ListVoucherDefinitionsArgs,
  LoyaltyClient,
  StartSessionArgs,
  UpdateReservationArgs,
} from './client';
export type { LoyaltyClientOptions, RetryOptions } from './options';
export type { TraceHeaders, TracePropagation } from './middleware/trace-context';
export { isLoyaltyRequestError, LoyaltyRequestError } from './errors';
export type { RequestFailureReason } from './errors';
export { requestIdOf } from './request-id';
export { sessionAuth } from './middleware/credentials';
export { SDK_VERSION } from './version';

export type { components, operations, paths } from '@loyalty/openapi';
export type {
  CatalogueItem,
  CatalogueItemData,
  CatalogueItemMessages,
  Creative,
  EndSessionError,
  ErrorBody,
  ErrorDetail,
  ExpiryRule,
  ForbiddenError,
  ForbiddenErrorMessage,
  Household,
  IdentifierType,
  InternalError,
  InvalidCatalogueItem,
  InvalidRequestError,
  ListVoucherDefinitionsError,
  LoyaltyResponse,
  MemberNotFoundError,
  OperationId,
  PayloadTooLargeError,
  ReservationUpdateError,
  ReservationUpdateErrorMessage,
  ReservationUpdateRequest,
  ReservationUpdateResponse,
  RewardMetadata,
  ServiceUnavailableError,
  Session,
  StartSessionError,
  SuccessBody,
  TooManyRequestsError,
  UnauthorizedError,
  UnauthorizedErrorMessage,
  UnexpectedResponseError,
  UnsupportedMediaTypeError,
  UpdateReservationError,
  VoucherDefinitionsError,
  VoucherDefinitionsErrorCode,
  VoucherDefinitionSummary,
} from './types';
