import type { Clock } from '../domain/clock';
import { defaultWalletLimits, type WalletLimits } from '../domain/limits';
import type { Services } from '../domain/services';
import type { Store } from '../store/port';
import { createReservationService } from './reservations/service';
import { createAuthService } from './sessions/auth-service';
import { createSessionService } from './sessions/service';
import { createVoucherDefinitionService } from './voucher-definitions/service';

export interface ServiceDeps {
  store: Store;
  clock: Clock;
  /** Default: `defaultWalletLimits`. */
  walletLimits?: WalletLimits;
  /** Told of the points each reservation change took and gave back (metrics). */
  onPointsMoved?: (reserved: number, returned: number) => void;
}

/** Every domain service, built on one store and one clock. */
export function createServices(deps: ServiceDeps): Services {
  return {
    auth: createAuthService(deps),
    sessions: createSessionService(deps),
    voucherDefinitions: createVoucherDefinitionService(deps),
    reservations: createReservationService({ ...deps, walletLimits: deps.walletLimits ?? defaultWalletLimits }),
  };
}
