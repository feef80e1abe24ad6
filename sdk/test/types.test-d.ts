/**
 * Type-level tests, checked by `tsc -p tsconfig.json --noEmit` at the repo
 * root (never run by jest). Each `@ts-expect-error` must meet an error: if
 * the SDK's types became looser, the directive itself fails the build.
 */
import {
  createLoyaltyClient,
  type components,
  type EndSessionArgs,
  type EndSessionError,
  type ForbiddenErrorMessage,
  type ListVoucherDefinitionsError,
  type LoyaltyClient,
  type LoyaltyRequestError,
  type paths,
  type ReservationUpdateErrorMessage,
  type ReservationUpdateRequest,
  type ReservationUpdateResponse,
  type Session,
  type SuccessBody,
  type TraceHeaders,
  type TracePropagation,
  type UnauthorizedErrorMessage,
  type UpdateReservationError,
  type VoucherDefinitionsErrorCode,
  type VoucherDefinitionSummary,
} from '@loyalty/sdk';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | void {}

declare const client: LoyaltyClient;
const ids = { correlationId: 'm-alice', sessionToken: 'st' };

export async function requestBodies(): Promise<void> {
  await client.updateReservation({ ...ids, reservationToken: 'rt', body: { reservationAmount: 7500 } });
  await client.updateReservation({
    ...ids,
    reservationToken: 'rt',
    body: { redemptionId: 'rd', redeemerId: 'm', catalogueItems: [{ productCode: '1', quantity: 2 }] },
  });

  await client.updateReservation({
    ...ids,
    reservationToken: 'rt',
    // @ts-expect-error a string amount
    body: { reservationAmount: '7500' },
  });
  await client.updateReservation({
    ...ids,
    reservationToken: 'rt',
    // @ts-expect-error neither reservationAmount nor catalogueItems
    body: { extendedExpiry: true },
  });
  await client.updateReservation({
    ...ids,
    reservationToken: 'rt',
    // @ts-expect-error a field the spec does not have
    body: { reservationAmount: 1, reservationAmmount: 2 },
  });
  await client.updateReservation({
    ...ids,
    reservationToken: 'rt',
    // @ts-expect-error a catalogue item without productCode
    body: { catalogueItems: [{ quantity: 1 }] },
  });
  await client.updateReservation({
    ...ids,
    reservationToken: 'rt',
    // @ts-expect-error channel must be a string
    body: { reservationAmount: 1, channel: 7 },
  });
  // @ts-expect-error the reservation token is required
  await client.updateReservation({ ...ids, body: { reservationAmount: 1 } });
}

export async function parameters(): Promise<void> {
  await client.startSession({ correlationId: 'm', identifierType: 'PHONE_NUMBER' });
  // @ts-expect-error not an identifier type of the spec
  await client.startSession({ correlationId: 'm', identifierType: 'PHONE' });
  // @ts-expect-error the session token is required
  await client.listVoucherDefinitions({ correlationId: 'm' });
  // @ts-expect-error businessUnit is a string
  await client.listVoucherDefinitions({ ...ids, businessUnit: 7 });
  await client.listVoucherDefinitions({ ...ids, businessUnit: 'LCL', requestId: 'trace-1', signal: AbortSignal.timeout(5000) });
}

export async function successBodies(): Promise<void> {
  const started = await client.startSession({ correlationId: 'm', identifierType: 'EMAIL' });
  if (started.error) return;
  // Without an error, data is there (no `?.` needed) and typed from the spec.
  const token: string = started.data.sessionToken;
  assertType<Equal<typeof started.data.identifierType, components['schemas']['IdentifierType']>>();
  const requestId: string = started.requestId;

  const listed = await client.listVoucherDefinitions({ correlationId: 'm', sessionToken: token });
  if (listed.data) {
    const first: VoucherDefinitionSummary | undefined = listed.data[0];
    const points: number | null | undefined = first?.pointValue;
    // @ts-expect-error not a field of a summary
    void first?.status;
    void points;
  }

  const updated = await client.updateReservation({ ...ids, reservationToken: 'rt', body: { reservationAmount: 1 } });
  if (!updated.error) {
    const response: ReservationUpdateResponse = updated.data;
    const household: number | undefined = updated.data.household?.availablePointsBalance;
    void response;
    void household;
  }
  void requestId;
}

export async function operationBErrors(): Promise<void> {
  const { error } = await client.updateReservation({ ...ids, reservationToken: 'rt', body: { reservationAmount: 1 } });
  if (!error) return;

  // errorCode is a literal union: a misspelt code does not compile.
  // @ts-expect-error misspelt error code
  if (error.errorCode === 'INVALID_REQEST') return;

  if (error.errorCode === 'INVALID_REQUEST') {
    // Narrowed to Operation B's 400: errorMessage is the spec's list of messages.
    assertType<Equal<typeof error.errorMessage, ReservationUpdateErrorMessage>>();
    if (error.errorMessage === 'New reservation amount cannot be greater than existing reservation amount') return;
    // @ts-expect-error misspelt error message
    if (error.errorMessage === 'New reservation amount can not be greater than existing reservation amount') return;
    switch (error.errorMessage) {
      case 'Invalid catalogue item(s)':
        void error.invalidCatalogueItems?.[0]?.productCode;
        return;
      // @ts-expect-error misspelt error message in a switch
      case 'Invalid tier amout':
        return;
    }
  }

  // Every body an error can be, UNEXPECTED_RESPONSE included.
  assertType<
    Equal<
      UpdateReservationError['errorCode'],
      | 'INVALID_REQUEST'
      | 'UNAUTHORIZED'
      | 'FORBIDDEN'
      | 'PAYLOAD_TOO_LARGE'
      | 'UNSUPPORTED_MEDIA_TYPE'
      | 'TOO_MANY_REQUESTS'
      | 'REQUEST_HEADERS_TOO_LARGE'
      | 'INTERNAL_ERROR'
      | 'SERVICE_UNAVAILABLE'
      | 'UNEXPECTED_RESPONSE'
    >
  >();
  if (error.errorCode === 'UNEXPECTED_RESPONSE') {
    const status: number = error.statusCode;
    const body: string = error.body;
    void status;
    void body;
  }
}

export async function unauthorizedMessages(): Promise<void> {
  const { error } = await client.listVoucherDefinitions(ids);
  if (error?.errorCode !== 'UNAUTHORIZED') return;
  // Narrowed on errorCode, a 401's message is one of the spec's three: a switch can say what to fix.
  assertType<Equal<typeof error.errorMessage, UnauthorizedErrorMessage>>();
  assertType<
    Equal<
      UnauthorizedErrorMessage,
      'Missing or unknown API key' | 'Missing session: send Authorization: Bearer <sessionToken>' | 'Invalid or expired session'
    >
  >();
  // @ts-expect-error a 401 message the spec does not have
  if (error.errorMessage === 'Session expired') return;
}

export async function forbiddenMessages(): Promise<void> {
  const { error } = await client.startSession({ correlationId: 'm-alice', identifierType: 'CARD_NUMBER' });
  if (error?.errorCode !== 'FORBIDDEN') return;
  // A 403 says which key went where it may not: a switch can tell the developer what to change.
  assertType<Equal<typeof error.errorMessage, ForbiddenErrorMessage>>();
  assertType<
    Equal<
      ForbiddenErrorMessage,
      | "Sessions are started by the partner's server with a secret key, never with a publishable key"
      | 'A publishable key works only from a page on one of its origins'
      | 'Secret keys must not be sent from a web page: use a publishable key there'
    >
  >();
  // @ts-expect-error a 403 message the spec does not have
  if (error.errorMessage === 'Forbidden') return;
}

export async function operationAErrors(): Promise<void> {
  const { error } = await client.listVoucherDefinitions(ids);
  if (!error) return;
  if (error.errorCode === 'BUSINESS_UNIT_REQUIRED') return;
  // @ts-expect-error misspelt error code
  if (error.errorCode === 'INVALID_BUSINES_UNIT') return;
  assertType<
    Equal<
      ListVoucherDefinitionsError['errorCode'],
      | VoucherDefinitionsErrorCode
      | 'UNAUTHORIZED'
      | 'FORBIDDEN'
      | 'TOO_MANY_REQUESTS'
      | 'REQUEST_HEADERS_TOO_LARGE'
      | 'INTERNAL_ERROR'
      | 'SERVICE_UNAVAILABLE'
      | 'UNEXPECTED_RESPONSE'
    >
  >();
  assertType<Equal<VoucherDefinitionsErrorCode, 'INVALID_BUSINESS_UNIT' | 'BUSINESS_UNIT_REQUIRED' | 'FEATURE_NOT_ENABLED' | 'INVALID_REQUEST'>>();
}

export async function raw(): Promise<void> {
  await client.raw.PUT('/client/users/{correlation_id}/reservations/{reservation_token}', {
    params: { path: { correlation_id: 'm', reservation_token: 'rt' } },
    body: { reservationAmount: 1 },
  });
  await client.raw.PUT('/client/users/{correlation_id}/reservations/{reservation_token}', {
    params: { path: { correlation_id: 'm', reservation_token: 'rt' } },
    // @ts-expect-error a string amount through the raw client
    body: { reservationAmount: '1' },
  });
  // @ts-expect-error a path the spec does not have
  await client.raw.GET('/client/users/{correlation_id}/vouchers', { params: { path: { correlation_id: 'm' } } });
  assertType<Equal<typeof client.raw, import('openapi-fetch').Client<paths>>>();
}

export function exportedTypes(): void {
  assertType<Equal<ReservationUpdateRequest, components['schemas']['ReservationUpdateRequest']>>();
  assertType<Equal<Session, components['schemas']['Session']>>();
  assertType<Equal<LoyaltyRequestError['reason'], 'timeout' | 'network' | 'aborted' | 'invalid-response'>>();
}

export function options(): void {
  createLoyaltyClient({ baseUrl: 'http://localhost:3000', apiKey: 'k', timeoutMs: 5000, retries: { limit: 3 }, userAgent: 'app/1' });
  createLoyaltyClient({ baseUrl: 'http://localhost:3000', apiKey: 'k', fetch: globalThis.fetch });
  // @ts-expect-error the API key is required
  createLoyaltyClient({ baseUrl: 'http://localhost:3000' });
  // @ts-expect-error retries is a count or an options object
  createLoyaltyClient({ baseUrl: 'http://localhost:3000', apiKey: 'k', retries: '3' });
}

export function tracePropagation(): void {
  const base = { baseUrl: 'http://localhost:3000', apiKey: 'k' };
  // What OpenTelemetry's propagation.inject(context.active(), carrier) fills in.
  createLoyaltyClient({ ...base, tracePropagation: () => ({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }) });
  createLoyaltyClient({ ...base, tracePropagation: () => ({ traceparent: 't', tracestate: 'vendor=1' }) });
  const carrier: TraceHeaders = {};
  createLoyaltyClient({ ...base, tracePropagation: () => carrier });
  // No current span: nothing to send.
  createLoyaltyClient({ ...base, tracePropagation: () => undefined });
  const propagation: TracePropagation = () => ({});
  createLoyaltyClient({ ...base, tracePropagation: propagation });
  // @ts-expect-error a function, not the headers themselves
  createLoyaltyClient({ ...base, tracePropagation: { traceparent: 't' } });
  // @ts-expect-error it returns the headers, not the traceparent alone
  createLoyaltyClient({ ...base, tracePropagation: () => '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
  // @ts-expect-error header values are strings
  createLoyaltyClient({ ...base, tracePropagation: () => ({ traceparent: 1 }) });
}

export async function startSessionErrors(): Promise<void> {
  const { error } = await client.startSession({ correlationId: 'm', identifierType: 'EMAIL' });
  if (error?.errorCode === 'UNAUTHORIZED') {
    // Start Session takes no member session: its one 401 is the API key's.
    assertType<Equal<typeof error.errorMessage, 'Missing or unknown API key'>>();
  }
  if (error?.errorCode === 'INVALID_REQUEST') {
    // A schema error has one wording on every operation; `details` says what is wrong.
    assertType<Equal<typeof error.errorMessage, 'Request does not match the API specification'>>();
  }
}

export async function headOfOperationA(): Promise<void> {
  // HEAD is in the spec: the raw client types it like GET, without a body.
  const { response } = await client.raw.HEAD('/client/users/{correlation_id}/voucher-definitions', {
    params: { path: { correlation_id: 'm' }, query: { businessUnit: 'LCL' } },
  });
  void response.status;
  // @ts-expect-error businessUnit is a string
  await client.raw.HEAD('/client/users/{correlation_id}/voucher-definitions', { params: { path: { correlation_id: 'm' }, query: { businessUnit: 7 } } });
}

export async function endSession(): Promise<void> {
  const ended = await client.endSession({ ...ids, requestId: 'sign-out-1', signal: AbortSignal.timeout(5000) });
  if (!ended.error) {
    // A 204 has no body: without an error, data is undefined, and says so.
    assertType<Equal<typeof ended.data, undefined>>();
    const status: number = ended.response.status;
    void status;
  } else {
    assertType<Equal<typeof ended.data, undefined>>();
    // The 401 a retry can meet after an attempt that ended the session is one of the spec's messages.
    if (ended.error.errorCode === 'UNAUTHORIZED') assertType<Equal<typeof ended.error.errorMessage, UnauthorizedErrorMessage>>();
  }
  assertType<Equal<SuccessBody<'endSession'>, undefined>>();
  // Operations with a body keep it: no `undefined` crept into their success.
  assertType<Equal<SuccessBody<'updateReservation'>, ReservationUpdateResponse>>();
  assertType<Equal<SuccessBody<'listVoucherDefinitions'>, VoucherDefinitionSummary[]>>();
  assertType<
    Equal<
      EndSessionError['errorCode'],
      | 'INVALID_REQUEST'
      | 'UNAUTHORIZED'
      | 'FORBIDDEN'
      | 'TOO_MANY_REQUESTS'
      | 'REQUEST_HEADERS_TOO_LARGE'
      | 'INTERNAL_ERROR'
      | 'SERVICE_UNAVAILABLE'
      | 'UNEXPECTED_RESPONSE'
    >
  >();
  const args: EndSessionArgs = { correlationId: 'm', sessionToken: 'st' };
  void args;
  // @ts-expect-error the session token is required: it says which session ends
  await client.endSession({ correlationId: 'm' });
  // @ts-expect-error the operation takes no body
  await client.endSession({ ...ids, body: {} });
  // @ts-expect-error the operation takes no query parameter
  await client.raw.DELETE('/client/users/{correlation_id}/sessions/current', { params: { path: { correlation_id: 'm' }, query: { all: true } } });
}
