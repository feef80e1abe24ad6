import { boundedCache } from '../../caching/bounded-cache';
import { AppError } from '../../domain/errors';
import type { ClientRecord } from '../../domain/model';
import type { VoucherDefinitionService, VoucherDefinitionSummary } from '../../domain/services';
import { freezeSnapshot } from '../../domain/snapshot';
import { voucherDefinitionsVersionReader, type ListingStore } from '../../store/port';
import { toSummary } from './summary';

/** The member channel this API serves. */
export const memberChannel = 'CUX';

/** Business units whose listing is kept at most; the least recently listed go first. */
export const maxCachedListings = 1_000;

interface CachedListing {
  version: number;
  summaries: readonly VoucherDefinitionSummary[];
}

export interface VoucherDefinitionServiceDeps {
  store: ListingStore;
  /**
   * The store's voucher definitions version (see `VoucherDefinitionsVersioned`):
   * a listing is kept until it changes. Absent: the store's own when it answers
   * synchronously, else none, and every request lists.
   */
  listingVersion?: () => number | Promise<number>;
  /** Told of every listing asked for (metrics): true when a kept one answered it. */
  onLookup?: (hit: boolean) => void;
}

export function createVoucherDefinitionService(deps: VoucherDefinitionServiceDeps): VoucherDefinitionService {
  const { store } = deps;
  const readVersion = deps.listingVersion ?? voucherDefinitionsVersionReader(store);
  /**
   * The summaries of each business unit, while the store's definitions keep
   * the version they were built from. One entry per business unit a client
   * has enabled, so it stays small. The summaries are a frozen snapshot: the
   * HTTP layer serialises it once and sends the same bytes again.
   */
  const listings = boundedCache<string, CachedListing>({ maxEntries: maxCachedListings });

  return {
    async listVoucherDefinitions(client, businessUnit) {
      if (!client.vouchersEnabled) {
        throw new AppError('FEATURE_NOT_ENABLED', 'Voucher feature is not enabled for the client');
      }
      const resolved = resolveBusinessUnit(client, businessUnit);
      if (!readVersion) return (await store.listPublishedVoucherDefinitions(resolved, memberChannel)).map(toSummary);
      // Read before listing: a change during the listing makes the entry stale at once.
      const version = await readVersion();
      const cached = listings.get(resolved);
      deps.onLookup?.(cached?.version === version);
      if (cached?.version === version) return cached.summaries;
      const definitions = await store.listPublishedVoucherDefinitions(resolved, memberChannel);
      const snapshot = freezeSnapshot(definitions.map(toSummary));
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
