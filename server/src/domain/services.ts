import type { components } from '../generated/api-types';
import type { ClientRecord, IdentifierType, SessionRecord } from './model';

type Schemas = components['schemas'];
export type VoucherDefinitionSummary = Schemas['VoucherDefinitionSummary'];
export type ReservationUpdateResponse = Schemas['ReservationUpdateResponse'];
/** The body of Operation B after schema validation. */
export type ReservationUpdateRequest = Schemas['ReservationUpdateFields'];

/**
 * What the HTTP layer calls. Each service throws `AppError` for every
 * documented failure and `StoreUnavailableError` when the store is down.
 */
export interface AuthService {
  /** The client owning this API key, or null (missing or unknown key). */
  authenticateClient(apiKey: string | undefined): Promise<ClientRecord | null>;
  /**
   * The session of this bearer token if it belongs to `client`, to
   * `correlationId` and has not expired; null otherwise.
   */
  authenticateSession(client: ClientRecord, bearerToken: string | undefined, correlationId: string): Promise<SessionRecord | null>;
}

export interface StartedSession {
  sessionToken: string;
  sessionId: string;
  identifierType: IdentifierType;
  expiresAt: Date;
}

export interface SessionService {
  /** Throws AppError MEMBER_NOT_FOUND for an unknown correlation id. */
  startSession(client: ClientRecord, correlationId: string, identifierType: IdentifierType): Promise<StartedSession>;
}

export interface VoucherDefinitionService {
  /**
   * Checks the feature switch, then resolves the business unit (AppError with
   * the seed's codes). The list may be a frozen snapshot shared with other
   * requests: read it, do not change it.
   */
  listVoucherDefinitions(client: ClientRecord, businessUnit: string | undefined): Promise<readonly VoucherDefinitionSummary[]>;
}

export interface ReservationContext {
  client: ClientRecord;
  session: SessionRecord;
  /** The path member; equals session.correlationId. */
  correlationId: string;
  reservationToken: string;
}

export interface ReservationService {
  /** Throws AppError INVALID_REQUEST with the seed's messages. */
  updateReservation(context: ReservationContext, request: ReservationUpdateRequest): Promise<ReservationUpdateResponse>;
}

export interface Services {
  auth: AuthService;
  sessions: SessionService;
  voucherDefinitions: VoucherDefinitionService;
  reservations: ReservationService;
}
