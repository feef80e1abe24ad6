/**
 * What one wallet may hold. api-decisions.md: "Every limit is explicit"; a
 * wallet is one document, rewritten by every change to it, so its size is
 * bounded (configuration: MAX_ACTIVE_RESERVATIONS_PER_WALLET).
 */
export interface WalletLimits {
  /** Live (not expired) reservations in one wallet; an offline creation past it is refused. */
  readonly maxActiveReservationsPerWallet: number;
}

export const defaultWalletLimits: WalletLimits = Object.freeze({ maxActiveReservationsPerWallet: 1000 });
