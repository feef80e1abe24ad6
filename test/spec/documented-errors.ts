/**
 * Every error message and code the product's documents name: the error
 * tables of the API's source document and api-decisions.md. Copied here because the project must not read
 * ../shared at test time. If a document adds one, add it here first.
 */

/** Operation B: the source document's table, with api-decisions.md's spelling of the two described rows. */
export const operationBSourceMessages = [
  'Account is not eligible for redemption',
  'Invalid tier amount',
  'Either reservationAmount or catalogueItems is required',
  'redemptionId and redeemerId, both are required',
  'Invalid catalogue item(s)',
  'Reservation Token is invalid',
  'Total points for catalogue items should be less than or equal to the reservation amount',
  'New reservation amount cannot be greater than existing reservation amount',
  'Invalid redemption identifier',
  'Invalid Redeemer',
  'Reservation belongs to a different session',
  'Channel should be a string value',
] as const;

/** Operation B: the cap, balance and wallet-size rules api-decisions.md names. */
export const operationBDecisionMessages = ['Redemption cap exceeded', 'Insufficient points balance', 'Too many active reservations'] as const;

/** Operation B's one error code. */
export const operationBCodes = ['INVALID_REQUEST'] as const;

/** Operation A: the source document's table. */
export const operationACodes = ['INVALID_BUSINESS_UNIT', 'BUSINESS_UNIT_REQUIRED', 'FEATURE_NOT_ENABLED'] as const;

/** Codes api-decisions.md names, by the status they go with. */
export const decisionCodes = {
  401: 'UNAUTHORIZED',
  404: 'MEMBER_NOT_FOUND',
  500: 'INTERNAL_ERROR',
  503: 'SERVICE_UNAVAILABLE',
} as const;
