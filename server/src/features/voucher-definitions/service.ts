import { AppError } from '../../domain/errors';
import type { ClientRecord } from '../../domain/model';
import type { VoucherDefinitionService } from '../../domain/services';
import type { Store } from '../../store/port';
import { toSummary } from './summary';

/** The member channel this API serves. */
export const memberChannel = 'CUX';

export function createVoucherDefinitionService(deps: { store: Store }): VoucherDefinitionService {
  const { store } = deps;

  return {
    async listVoucherDefinitions(client, businessUnit) {
      if (!client.vouchersEnabled) {
        throw new AppError('FEATURE_NOT_ENABLED', 'Voucher feature is not enabled for the client');
      }
      const resolved = resolveBusinessUnit(client, businessUnit);
      const definitions = await store.listPublishedVoucherDefinitions(resolved, memberChannel);
      return definitions.map(toSummary);
    },
  };
}

/** The supplied business unit if the client enabled it, else the client's default. */
export function resolveBusinessUnit(client: ClientRecord, businessUnit: string | undefined): string {
  if (businessUnit !== undefined) {
    if (client.enabledBusinessUnits.includes(businessUnit)) return businessUnit;
    throw new AppError('INVALID_BUSINESS_UNIT', 'Business unit is not enabled for the client');
  }
  const fallback = client.defaultBusinessUnit;
  if (fallback !== null && client.enabledBusinessUnits.includes(fallback)) return fallback;
  throw new AppError('BUSINESS_UNIT_REQUIRED', 'Business unit is required');
}
