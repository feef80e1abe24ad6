import { AppError } from '../../domain/errors';
import type { ClientRecord } from '../../domain/model';
import type { VoucherDefinitionService, VoucherDefinitionSummary } from '../../domain/services';
import { freezeSnapshot } from '../../domain/snapshot';
import { voucherDefinitionsVersionReader, type Store } from '../../store/port';
import { toSummary } from './summary';

/** The member channel this API serves. */
export const memberChannel = 'CUX';

interface CachedListing {
  version: number;
  summaries: readonly VoucherDefinitionSummary[];
}

export function createVoucherDefinitionService(deps: { store: Store }): VoucherDefinitionService {
  const { store } = deps;
  const readVersion = voucherDefinitionsVersionReader(store);
  /**
   * The summaries of each business unit, while the store's definitions keep
   * the version they were built from (only for a store that tells: see
   * `VoucherDefinitionsVersioned`). One entry per business unit a client
   * has enabled, so it stays small. The summaries are a frozen snapshot: the
   * HTTP layer serialises it once.
   */
  const listings = new Map<string, CachedListing>();

  return {
    async listVoucherDefinitions(client, businessUnit) {
      if (!client.vouchersEnabled) {
        throw new AppError('FEATURE_NOT_ENABLED', 'Voucher feature is not enabled for the client');
      }
      const resolved = resolveBusinessUnit(client, businessUnit);
      // Read before listing: a change during the listing makes the entry stale at once.
      const version = readVersion?.();
      if (version !== undefined) {
        const cached = listings.get(resolved);
        if (cached?.version === version) return cached.summaries;
      }
      const definitions = await store.listPublishedVoucherDefinitions(resolved, memberChannel);
      const summaries = definitions.map(toSummary);
      // Only a cached listing is answered again: only it is worth freezing
      // (and serialising once).
      if (version === undefined) return summaries;
      const snapshot = freezeSnapshot(summaries);
      listings.set(resolved, { version, summaries: snapshot });
      return snapshot;
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
