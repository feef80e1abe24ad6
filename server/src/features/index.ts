import type { Clock } from '../domain/clock';
import { defaultWalletLimits, type WalletLimits } from '../domain/limits';
import type { Services } from '../domain/services';
import type { AuthStore, ListingStore, ReservationStore, SessionStateStore } from '../store/port';
import { createReservationService } from './reservations/service';
import { createAuthService, type CredentialCaching } from './sessions/auth-service';
import { createSessionService } from './sessions/service';
import { SessionState } from './sessions/session-state';
import { createVoucherDefinitionService } from './voucher-definitions/service';

/** The caches a process may keep (metrics label their lookups by these names). */
export type CacheName = 'apiKeys' | 'sessions' | 'listings';

/** What the services read and write: authentication, the listing and Operation B. */
type ServicesStore = AuthStore & SessionStateStore & ListingStore & ReservationStore;

export interface ServiceDeps {
  store: ServicesStore;
  clock: Clock;
  /** Default: `defaultWalletLimits`. */
  walletLimits?: WalletLimits;
  /** Told of the points each reservation change took and gave back (metrics). */
  onPointsMoved?: (reserved: number, returned: number) => void;
  /** Keep API keys and sessions for a moment (processes sharing a database); absent: read every time. */
  credentialCaching?: Omit<CredentialCaching, 'onLookup'>;
  /** The store's voucher definitions version, to keep listings until it changes (see createVoucherDefinitionService). */
  listingVersion?: () => number | Promise<number>;
  /** Told of every lookup of a cache (metrics). */
  onCacheLookup?: (cache: CacheName, hit: boolean) => void;
  /** Ended sessions the deployment keeps at most (`MAX_ENDED_SESSIONS`); default `defaultMaxEndedSessions`. */
  maxEndedSessions?: number;
  /** Milliseconds of a monotonic clock: how old what the process read of the session keys, the ended sessions and the credentials it keeps is (tests). Default `performance.now`. */
  now?: () => number;
}

/** Every domain service, built on one store and one clock. */
export function createServices(deps: ServiceDeps): Services {
  const { onCacheLookup } = deps;
  // The credentials kept on the process's monotonic clock unless they name their own.
  const credentialCaching = deps.credentialCaching && { ...(deps.now && { now: deps.now }), ...deps.credentialCaching };
  // What this process knows of the session keys and the ended sessions, read again now and then, for both services.
  const sessionState = new SessionState({ store: deps.store, clock: deps.clock, ...(deps.now && { now: deps.now }) });
  const auth = createAuthService({
    store: deps.store,
    clock: deps.clock,
    sessionState,
    ...(credentialCaching && { credentialCaching: { ...credentialCaching, ...(onCacheLookup && { onLookup: onCacheLookup }) } }),
  });
  return {
    auth,
    // A session started here is used here first, most often: it is kept as if read.
    sessions: createSessionService({
      store: deps.store,
      clock: deps.clock,
      sessionState,
      startingSession: auth.startingSession,
      // Members as starts read them, as long as a key is kept (2 s).
      ...(credentialCaching && { memberCaching: { ...credentialCaching.sessions, ...(credentialCaching.now && { now: credentialCaching.now }) } }),
      ...(deps.maxEndedSessions !== undefined && { maxEndedSessions: deps.maxEndedSessions }),
    }),
    voucherDefinitions: createVoucherDefinitionService({
      store: deps.store,
      ...(deps.listingVersion && { listingVersion: deps.listingVersion }),
      ...(onCacheLookup && { onLookup: (hit: boolean) => onCacheLookup('listings', hit) }),
    }),
    reservations: createReservationService({ ...deps, walletLimits: deps.walletLimits ?? defaultWalletLimits }),
  };
}
