/**
 * What one wallet may hold. Every limit is explicit (the contract says so): a
 * wallet is read whole when its totals are stale (an expiry passed), its
 * reservations are delivered from its outbox after each whole save, and a fixture loads
 * it at once, so its size is bounded (configuration:
 * MAX_ACTIVE_RESERVATIONS_PER_WALLET).
 */
export interface WalletLimits {
  /** Live (not expired) reservations in one wallet; an offline creation past it is refused. */
  readonly maxActiveReservationsPerWallet: number;
}

export const defaultWalletLimits: WalletLimits = Object.freeze({ maxActiveReservationsPerWallet: 1000 });

/**
 * Live publishable keys a deployment holds at most, over all clients: every
 * process keeps their origins in memory for the CORS preflights, so their
 * number is bounded. Making one more is refused (the key service, fixture
 * loading); revoke one first.
 */
export const maxLivePublishableKeys = 1000;

/**
 * The longest a session lives, in seconds (a day). A session token is a
 * bearer credential a member's page holds: a leaked one works until it
 * expires, and nothing ends it earlier yet. A client's `sessionTtlSeconds`
 * longer than this is refused when it is loaded (the fixture schema), and
 * a client stored with one before the bound existed gets sessions of this
 * length (the session service).
 */
export const maxSessionTtlSeconds = 86_400;
