// The spec's types, generated from openapi/openapi.yaml (`@loyalty/openapi`, the one generated file the server and the SDK share).
import type { components } from '@loyalty/openapi';
import type { ApiKeyRecord, ClientRecord, IdentifierType, MemberRecord, MemberSession } from './model';
import type { AppError } from './errors';

type Schemas = components['schemas'];
export type VoucherDefinitionSummary = Schemas['VoucherDefinitionSummary'];
export type ReservationUpdateResponse = Schemas['ReservationUpdateResponse'];
/** The body of Operation B after schema validation. */
export type ReservationUpdateRequest = Schemas['ReservationUpdateFields'];

/**
 * Asked before a credential this process does not know (an API key or a
 * session token that no read of late has found) is looked up in the store:
 * throws to refuse the lookup, and the request is answered with what it
 * threw. How the HTTP layer limits what strangers trying credentials cost.
 */
export type CredentialLookupGate = () => void;

/**
 * What the HTTP layer calls. Each service throws `AppError` for every
 * documented failure and `StoreUnavailableError` when the store is down.
 */
export interface AuthService {
  /**
   * One store call for a request that carries an API key and a bearer
   * token: the token's session, with its client and member. Nothing is
   * decided yet; `authenticateClient` and `authenticateSession` decide, in
   * their order, and take it instead of calling the store again.
   */
  lookUpSession(bearerToken: string | undefined, gate?: CredentialLookupGate): Promise<SessionLookup | null>;
  /**
   * The origins of every live publishable key: pages there may call the API
   * (CORS). A process may answer what it read up to a key's caching bound
   * ago, so a new, rolled or revoked key shows within that bound.
   */
  publishableOrigins(): Promise<ReadonlySet<string>>;
  /** The client owning this API key and the key, or null (a missing, unknown, expired or revoked key). */
  authenticateClient(apiKey: string | undefined, lookup?: SessionLookup | null, gate?: CredentialLookupGate): Promise<AuthenticatedClient | null>;
  /**
   * The session of this bearer token if it belongs to `client`, to
   * `correlationId`, has not expired and the key that started it is still
   * live; null otherwise.
   */
  authenticateSession(
    client: ClientRecord,
    bearerToken: string | undefined,
    correlationId: string,
    lookup?: SessionLookup | null,
    gate?: CredentialLookupGate,
  ): Promise<MemberSession | null>;
}

/** A client, authenticated by one of its live keys. */
export interface AuthenticatedClient {
  client: ClientRecord;
  key: ApiKeyRecord;
}

/** A session as its token holds it (sealed) or as stored, with its client, member and key (any may be missing); not yet checked. */
export interface SessionLookup {
  /** The token it was looked up with (a lookup only ever answers for its own token). */
  bearerToken: string;
  session: MemberSession;
  client: ClientRecord | null;
  /** Absent when it was not read with the session (a process keeps a member briefly): whoever needs it reads it. */
  member?: MemberRecord | null;
  key: ApiKeyRecord | null;
}

export interface StartedSession {
  sessionToken: string;
  sessionId: string;
  identifierType: IdentifierType;
  expiresAt: Date;
}

export interface SessionService {
  /** Throws AppError MEMBER_NOT_FOUND for an unknown correlation id. The session ends with `keyId`, the key that started it. */
  startSession(client: ClientRecord, keyId: string, correlationId: string, identifierType: IdentifierType): Promise<StartedSession>;
  /**
   * Ends a valid session (sign-out): its token is refused from then on, at
   * once on this process and on every process within 2 s. Throws AppError
   * UNAUTHORIZED when it had ended already (a sign-out raced this one), and
   * SERVICE_UNAVAILABLE when the deployment holds as many ended sessions as
   * it may keep (`MAX_ENDED_SESSIONS`), until some expire.
   */
  endSession(session: MemberSession): Promise<void>;
}

export interface VoucherDefinitionService {
  /**
   * Checks the feature switch, then resolves the business unit (AppError with
   * the documented codes), and lists that unit.
   */
  listVoucherDefinitions(client: ClientRecord, businessUnit: string | undefined): Promise<VoucherListing>;
}

/** Operation A's answer: the summaries of the resolved business unit. */
export interface VoucherListing {
  businessUnit: string;
  /** May be a frozen snapshot shared with other requests: read it, do not change it. */
  summaries: readonly VoucherDefinitionSummary[];
}

export interface ReservationContext {
  client: ClientRecord;
  session: MemberSession;
  /** The path member, when it was read with the session; read by the service otherwise. */
  member?: MemberRecord | null;
  /** The path member; equals session.correlationId. */
  correlationId: string;
  reservationToken: string;
}

export interface ReservationService {
  /** Throws AppError INVALID_REQUEST with the documented messages. */
  updateReservation(context: ReservationContext, request: ReservationUpdateRequest): Promise<ReservationUpdateResponse>;
  /**
   * The documented answer to a body the request validation refused: the
   * message of the first of Operation B's body rules it breaks, malformed
   * catalogue items named with the unknown product codes; null when no rule
   * words it (the validator's answer stands).
   */
  documentedAnswerToRefusedBody(body: unknown): Promise<AppError | null>;
}

export interface Services {
  auth: AuthService;
  sessions: SessionService;
  voucherDefinitions: VoucherDefinitionService;
  reservations: ReservationService;
}
