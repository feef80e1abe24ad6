import { reservationError } from '../../domain/errors';
import type { ReservationUpdateRequest, ReservationUpdateResponse } from '../../domain/services';
import type { ReservationStore } from '../../store/port';

type CatalogueItemData = NonNullable<ReservationUpdateResponse['catalogueItemsData']>[number];

/** The request's redemption and items, resolved against the store. */
export type ResolvedItems =
  | { itemLevel: false; totalPoints: 0 }
  | { itemLevel: true; redemptionName: string; data: CatalogueItemData[]; totalPoints: number };

/** The spec's `CatalogueItems` and `CatalogueItem` limits (body-rules.test.ts holds them to the spec). */
export const productCodeMaxLength = 64;
export const quantityMax = 10000;
export const catalogueItemsMax = 100;

type JsonObject = Record<string, unknown>;

/**
 * Whether a catalogue item entry, as sent, has the form the spec's
 * `CatalogueItem` gives it: `productCode` a string of 1 to 64 characters,
 * `quantity` absent or a whole number from 1 to 10000. (Unknown fields are
 * the schema's to refuse; they do not make an entry invalid here.)
 */
export function isWellFormedItem(item: unknown): boolean {
  if (!isJsonObject(item)) return false;
  const productCode = ownField(item, 'productCode');
  const quantity = ownField(item, 'quantity');
  const productCodeOk =
    typeof productCode === 'string' && productCode.length > 0 && codePointLength(productCode) <= productCodeMaxLength;
  const quantityOk =
    !Object.hasOwn(item, 'quantity') ||
    (typeof quantity === 'number' && Number.isInteger(quantity) && quantity > 0 && quantity <= quantityMax);
  return productCodeOk && quantityOk;
}

/**
 * Every entry that is malformed or whose `productCode` maps to no catalogue
 * item, exactly as sent, in request order: the `invalidCatalogueItems` of one
 * answer, whichever check met the first of them. The store is asked only
 * about the well-formed entries' codes, once each.
 */
export async function findInvalidCatalogueItems(store: Pick<ReservationStore, 'findCatalogueItems'>, entries: readonly unknown[]): Promise<unknown[]> {
  // The product code of each well-formed entry; null for a malformed one.
  const codes = entries.map((entry) => (isWellFormedItem(entry) ? (entry as { productCode: string }).productCode : null));
  const asked = [...new Set(codes.filter((code) => code !== null))];
  const known = new Set(asked.length === 0 ? [] : (await store.findCatalogueItems(asked)).map((item) => item.productCode));
  return entries.filter((_entry, i) => {
    const code = codes[i] ?? null;
    return code === null || !known.has(code);
  });
}

/**
 * Checks, in the documented order, the redemption identifier, its redeemer and
 * the catalogue items; returns what the response reports of them.
 * (The service has made sure that redemptionId and redeemerId come together,
 * the request validation that each item is well formed.)
 */
export async function resolveItems(store: ReservationStore, request: ReservationUpdateRequest): Promise<ResolvedItems> {
  const redemptionName = await checkRedemption(store, request);
  const requested = request.catalogueItems;
  if (!requested) return { itemLevel: false, totalPoints: 0 };

  const found = await store.findCatalogueItems([...new Set(requested.map((i) => i.productCode))]);
  const byCode = new Map(found.map((item) => [item.productCode, item]));
  const unknown = requested.filter((i) => !byCode.has(i.productCode));
  if (unknown.length > 0) throw reservationError('Invalid catalogue item(s)', { invalidCatalogueItems: unknown });

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

/** Length as JSON Schema's `maxLength` counts it: code points, not UTF-16 units. */
function codePointLength(text: string): number {
  return [...text].length;
}

/** Only the object's own fields count: never one inherited from a prototype. */
export function ownField(object: JsonObject, field: string): unknown {
  return Object.hasOwn(object, field) ? object[field] : undefined;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
