import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { operations, paths } from '@loyalty/openapi';
import { apiKeyMiddleware, sessionAuth } from './middleware/credentials';
import { errorBodyMiddleware } from './middleware/error-body';
import { requestIdMiddleware } from './middleware/request-id';
import { traceContextMiddleware } from './middleware/trace-context';
import { runsInBrowser, userAgentMiddleware } from './middleware/user-agent';
import { resolveOptions, type LoyaltyClientOptions } from './options';
import { newRequestId, REQUEST_ID_HEADER } from './request-id';
import { createTransport } from './transport/transport';
import type { LoyaltyResponse, Session } from './types';

type Parameters_<Op extends keyof operations> = operations[Op]['parameters'];

/** Options every call takes. */
export interface CallOptions {
  /** Cancels the call, its retries and the waits between them. */
  signal?: AbortSignal;
  /** `X-Request-Id` to send instead of a generated one, such as your own trace id. */
  requestId?: string;
}

export interface StartSessionArgs extends CallOptions {
  correlationId: Parameters_<'startSession'>['path']['correlation_id'];
  identifierType: Parameters_<'startSession'>['header']['X-Identifier-Type'];
}

export interface ListVoucherDefinitionsArgs extends CallOptions {
  correlationId: Parameters_<'listVoucherDefinitions'>['path']['correlation_id'];
  sessionToken: Session['sessionToken'];
  businessUnit?: NonNullable<Parameters_<'listVoucherDefinitions'>['query']>['businessUnit'];
}

export interface UpdateReservationArgs extends CallOptions {
  correlationId: Parameters_<'updateReservation'>['path']['correlation_id'];
  sessionToken: Session['sessionToken'];
  reservationToken: Parameters_<'updateReservation'>['path']['reservation_token'];
  body: operations['updateReservation']['requestBody']['content']['application/json'];
}

export interface EndSessionArgs extends CallOptions {
  correlationId: Parameters_<'endSession'>['path']['correlation_id'];
  /** The token of the session to end, as Start Session answered it. */
  sessionToken: Session['sessionToken'];
}

export interface LoyaltyClient {
  /** Starts a member session (`POST .../sessions`). Never retried: each call starts a new session. */
  startSession(args: StartSessionArgs): Promise<LoyaltyResponse<'startSession'>>;
  /** Lists the voucher definitions of the member channel (Operation A, `GET`). */
  listVoucherDefinitions(args: ListVoucherDefinitionsArgs): Promise<LoyaltyResponse<'listVoucherDefinitions'>>;
  /** Updates (or, with `offline`, creates) a reservation (Operation B, idempotent `PUT`). */
  updateReservation(args: UpdateReservationArgs): Promise<LoyaltyResponse<'updateReservation'>>;
  /**
   * Ends the member session of `sessionToken` when the member signs out
   * (`DELETE .../sessions/current`): `204`, with no `data`. Retried like the
   * other idempotent calls, so an attempt whose answer was lost may have
   * ended the session already: its retry then answers `401 Invalid or
   * expired session`, which means the token is no session of this member any
   * more (ended, expired, or never one), as after any other sign-out.
   */
  endSession(args: EndSessionArgs): Promise<LoyaltyResponse<'endSession'>>;
  /**
   * The underlying openapi-fetch client, typed from the spec, with the same
   * middleware and transport (API key, request id, trace context, User-Agent,
   * timeouts, retries). Add the session per call: `middleware: [sessionAuth(token)]`.
   */
  readonly raw: Client<paths>;
}

/**
 * Rejects path segments that URL parsing would resolve away: with `..` as a
 * correlation id, `/client/users/../reservations/x` would reach another path.
 */
function pathSegment(name: string, value: string): string {
  if (typeof value !== 'string' || value === '' || value === '.' || value === '..') {
    throw new TypeError(`${name} must be a non-empty string other than "." and ".."`);
  }
  return value;
}

/**
 * The id is chosen here, not left to the request-id middleware, so that the
 * method can return it; the middleware keeps an id that is already set.
 */
function callInit(args: CallOptions, middleware: Middleware[]) {
  const requestId = args.requestId ?? newRequestId();
  return { requestId, init: { signal: args.signal, headers: { [REQUEST_ID_HEADER]: requestId }, middleware } };
}

/** Makes a client of the loyalty API. Options are checked now; a bad one throws. */
export function createLoyaltyClient(options: LoyaltyClientOptions): LoyaltyClient {
  const resolved = resolveOptions(options);
  const raw = createClient<paths>({
    baseUrl: resolved.baseUrl,
    fetch: createTransport(resolved.fetch, { timeoutMs: resolved.timeoutMs, retry: resolved.retry }),
  });
  // Order matters for onResponse, which openapi-fetch runs in reverse: the
  // request id is recorded on the response the caller finally gets, after
  // errorBodyMiddleware may have replaced it.
  raw.use(
    requestIdMiddleware(),
    ...(resolved.tracePropagation ? [traceContextMiddleware(resolved.tracePropagation)] : []),
    ...(runsInBrowser() ? [] : [userAgentMiddleware(resolved.userAgent)]),
    apiKeyMiddleware(resolved.apiKey),
    errorBodyMiddleware(),
  );

  // Plain closures, not methods on `this`: `const { startSession } = client` works.
  return {
    raw,

    async startSession(args) {
      const { requestId, init } = callInit(args, []);
      const result = await raw.POST('/client/users/{correlation_id}/sessions', {
        params: {
          path: { correlation_id: pathSegment('correlationId', args.correlationId) },
          header: { 'X-Identifier-Type': args.identifierType },
        },
        ...init,
      });
      return { ...result, requestId };
    },

    async listVoucherDefinitions(args) {
      const { requestId, init } = callInit(args, [sessionAuth(args.sessionToken)]);
      const result = await raw.GET('/client/users/{correlation_id}/voucher-definitions', {
        params: {
          path: { correlation_id: pathSegment('correlationId', args.correlationId) },
          query: { businessUnit: args.businessUnit },
        },
        ...init,
      });
      return { ...result, requestId };
    },

    async updateReservation(args) {
      const { requestId, init } = callInit(args, [sessionAuth(args.sessionToken)]);
      const result = await raw.PUT('/client/users/{correlation_id}/reservations/{reservation_token}', {
        params: {
          path: {
            correlation_id: pathSegment('correlationId', args.correlationId),
            reservation_token: pathSegment('reservationToken', args.reservationToken),
          },
        },
        body: args.body,
        ...init,
      });
      return { ...result, requestId };
    },

    async endSession(args) {
      const { requestId, init } = callInit(args, [sessionAuth(args.sessionToken)]);
      const result = await raw.DELETE('/client/users/{correlation_id}/sessions/current', {
        params: { path: { correlation_id: pathSegment('correlationId', args.correlationId) } },
        ...init,
      });
      return { ...result, requestId };
    },
  };
}
