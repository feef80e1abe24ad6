import type { Clock } from '../domain/clock';
import { defaultWalletLimits, type WalletLimits } from '../domain/limits';
import type { Services } from '../domain/services';
import type { Store } from '../store/port';
import { createReservationService } from './reservations/service';
import { createAuthService } from './sessions/auth-service';
import { createSessionService } from './sessions/service';
import { createVoucherDefinitionService } from './voucher-definitions/service';

/** Every domain service, built on one store and one clock; limits default to `defaultWalletLimits`. */
export function createServices(deps: { store: Store; clock: Clock; walletLimits?: WalletLimits }): Services {
  return {
    auth: createAuthService(deps),
    sessions: createSessionService(deps),
    voucherDefinitions: createVoucherDefinitionService(deps),
    reservations: createReservationService({ ...deps, walletLimits: deps.walletLimits ?? defaultWalletLimits }),
  };
}
