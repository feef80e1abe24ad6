import { reservationError, schemaError, type AppError } from '../../domain/errors';
import type { ReservationStore } from '../../store/port';

/*
 * Operation B's body rules that have a message of their own in the contract
 * (the spec lists each), in the spec's order: channel type, amount-or-items,
 * the redemption pair, then the catalogue items. The one file that judges
 * Operation B's body besides the request validation (http/request-validation.ts).
 *
 * The spec's schema states all of them but the redemption pair. So a body
 * the request validation accepts breaks none of them but that one, which
 * the service checks first (`redemptionPairProblem`); a body it refuses is
 * answered with the message of the first rule broken, when there is one,
 * instead of the validator's generic wording (`documentedAnswerToRefusedBody`,
 * which the service offers and the route's validation asks).
 */

/** The spec's `CatalogueItems` and `CatalogueItem` limits (body-rules.test.ts holds them to the spec). */
export const productCodeMaxLength = 64;
export const quantityMax = 10000;
export const catalogueItemsMax = 100;

/** What naming every invalid catalogue item asks of the store. */
type Catalogue = Pick<ReservationStore, 'findCatalogueItems'>;

type JsonObject = Record<string, unknown>;

/** `redemptionId` and `redeemerId` go together, and `catalogueItems` needs both: the rule the schema does not state. */
export function redemptionPairProblem(body: object): AppError | null {
  const has = (field: string): boolean => Object.hasOwn(body, field);
  const hasBothIds = has('redemptionId') && has('redeemerId');
  const hasOneId = has('redemptionId') !== has('redeemerId');
  if (hasOneId || (has('catalogueItems') && !hasBothIds)) return reservationError('redemptionId and redeemerId, both are required');
  return null;
}

/**
 * The documented answer naming catalogue item entries, exactly as sent, in
 * request order: the malformed ones and those naming no catalogue item.
 * Also the operation's own answer to unknown codes in a valid body (catalogue.ts).
 */
export function invalidCatalogueItems(entries: unknown[]): AppError {
  return reservationError('Invalid catalogue item(s)', { invalidCatalogueItems: entries });
}

/**
 * The answer to a body the request validation refused, when a rule above
 * words it; null when none does (the validator's answer stands).
 *
 * Malformed catalogue items are answered with `invalidCatalogueItems`:
 * whether the other entries name known products only the store can say, so
 * the answer asks it, and lists every offending entry at once.
 */
export async function documentedAnswerToRefusedBody(catalogue: Catalogue, body: unknown): Promise<AppError | null> {
  const broken = firstRuleBroken(body);
  if (broken) return broken;
  const items = catalogueItemsOf(body);
  if (!items || items.every(isWellFormedItem)) return null;
  return invalidCatalogueItems(await findInvalidCatalogueItems(catalogue, items));
}

/** The body's `catalogueItems` when it is an array (of objects, once the rules before passed). */
function catalogueItemsOf(body: unknown): readonly unknown[] | null {
  const items = isJsonObject(body) && Object.hasOwn(body, 'catalogueItems') ? body.catalogueItems : undefined;
  return Array.isArray(items) ? items : null;
}

/** The first rule `body` breaks, as the error to answer with; null when none applies. */
function firstRuleBroken(body: unknown): AppError | null {
  if (!isJsonObject(body)) {
    return schemaError({ path: '/body', message: 'must be object' });
  }
  const has = (field: string): boolean => Object.hasOwn(body, field);
  if (has('channel') && typeof ownField(body, 'channel') !== 'string') {
    return reservationError('Channel should be a string value');
  }
  if (!has('reservationAmount') && !has('catalogueItems')) {
    return reservationError('Either reservationAmount or catalogueItems is required');
  }
  return redemptionPairProblem(body) ?? catalogueItemsProblem(ownField(body, 'catalogueItems'));
}

/**
 * The item list's own form. Past the spec's `maxItems` it is a schema error
 * before any entry is judged, so the store is never asked about more codes
 * than a valid request may carry. An entry that is not an object cannot be
 * listed in `invalidCatalogueItems` (the spec's `InvalidCatalogueItem` is an
 * object), so such a body is a plain schema error too.
 */
function catalogueItemsProblem(items: unknown): AppError | null {
  if (!Array.isArray(items)) return null; // absent, or the validator's to word
  if (items.length > catalogueItemsMax) {
    return schemaError({ path: '/body/catalogueItems', message: `must NOT have more than ${catalogueItemsMax} items` });
  }
  const notAnObject = items.findIndex((item) => !isJsonObject(item));
  if (notAnObject < 0) return null;
  return schemaError({ path: `/body/catalogueItems/${notAnObject}`, message: 'must be object' });
}

/**
 * Whether a catalogue item entry, as sent, has the form the spec's
 * `CatalogueItem` gives it: `productCode` a string of 1 to 64 characters,
 * `quantity` absent or a whole number from 1 to 10000. (Unknown fields are
 * the schema's to refuse; they do not make an entry invalid here.)
 */
function isWellFormedItem(item: unknown): boolean {
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
async function findInvalidCatalogueItems(catalogue: Catalogue, entries: readonly unknown[]): Promise<unknown[]> {
  // The product code of each well-formed entry; null for a malformed one.
  const codes = entries.map((entry) => (isWellFormedItem(entry) ? (entry as { productCode: string }).productCode : null));
  const asked = [...new Set(codes.filter((code) => code !== null))];
  const known = new Set(asked.length === 0 ? [] : (await catalogue.findCatalogueItems(asked)).map((item) => item.productCode));
  return entries.filter((_entry, i) => {
    const code = codes[i] ?? null;
    return code === null || !known.has(code);
  });
}

/** Length as JSON Schema's `maxLength` counts it: code points, not UTF-16 units. */
function codePointLength(text: string): number {
  return [...text].length;
}

/** Only the object's own fields count: never one inherited from a prototype. */
function ownField(object: JsonObject, field: string): unknown {
  return Object.hasOwn(object, field) ? object[field] : undefined;
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
