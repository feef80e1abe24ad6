import { reservationError } from '../../domain/errors';
import type { ReservationUpdateRequest, ReservationUpdateResponse } from '../../domain/services';
import type { ReservationStore } from '../../store/port';
import { invalidCatalogueItems } from './body-rules';

type CatalogueItemData = NonNullable<ReservationUpdateResponse['catalogueItemsData']>[number];

/** The request's redemption and items, resolved against the store. */
export type ResolvedItems =
  | { itemLevel: false; totalPoints: 0 }
  | { itemLevel: true; redemptionName: string; data: CatalogueItemData[]; totalPoints: number };

/**
 * Checks, in the documented order, the redemption identifier, its redeemer and
 * the catalogue items; returns what the response reports of them.
 * (The service has made sure that redemptionId and redeemerId come together,
 * the request validation that each item is well formed: body-rules.ts.)
 */
export async function resolveItems(store: ReservationStore, request: ReservationUpdateRequest): Promise<ResolvedItems> {
  const redemptionName = await checkRedemption(store, request);
  const requested = request.catalogueItems;
  if (!requested) return { itemLevel: false, totalPoints: 0 };

  const found = await store.findCatalogueItems([...new Set(requested.map((i) => i.productCode))]);
  const byCode = new Map(found.map((item) => [item.productCode, item]));
  const unknown = requested.filter((i) => !byCode.has(i.productCode));
  if (unknown.length > 0) throw invalidCatalogueItems(unknown);

  const data = requested.map((entry): CatalogueItemData => {
    const item = byCode.get(entry.productCode)!;
    const quantity = entry.quantity ?? 1;
    return {
      productCode: entry.productCode,
      quantity,
      catalogueItemId: item.catalogueItemId,
      catalogueItemName: item.catalogueItemName,
      redemptionType: item.redemptionType,
      pointsAmount: item.pointsAmount,
      totalPointsAmount: item.pointsAmount * quantity,
      messages: item.messages,
    };
  });
  const totalPoints = data.reduce((sum, d) => sum + d.totalPointsAmount, 0);
  return { itemLevel: true, redemptionName: redemptionName ?? '', data, totalPoints };
}

async function checkRedemption(store: ReservationStore, request: ReservationUpdateRequest): Promise<string | undefined> {
  if (request.redemptionId === undefined) return undefined;
  const redemption = await store.findRedemption(request.redemptionId);
  if (!redemption) throw reservationError('Invalid redemption identifier');
  if (redemption.redeemerId !== request.redeemerId) throw reservationError('Invalid Redeemer');
  return redemption.redemptionName;
}
