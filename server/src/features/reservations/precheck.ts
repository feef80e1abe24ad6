import type { RequestHandler } from 'express';
import { reservationError, type AppError } from '../../domain/errors';
import { depthOf, maxBodyDepth } from '../../http/body-depth';

/**
 * Operation B's body rules that have their own message in the seed. They run
 * before schema validation so that these messages win over the validator's
 * generic ones, in the spec's order: channel type, amount-or-items, the
 * redemption pair, then the form of each catalogue item. Everything else
 * about the body's form is left to the schema.
 */
export const precheckReservationBody: RequestHandler = (req, _res, next) => {
  const problem = tooDeep(req.body) ?? findSeedRuleViolation(req.body);
  if (problem) throw problem;
  next();
};

/**
 * A deeply nested body is refused before anything walks it recursively (the
 * validator, or `JSON.stringify` echoing an invalid catalogue item), which
 * could overflow the stack: 16 KiB of JSON nests thousands of levels.
 */
function tooDeep(body: unknown): AppError | null {
  if (depthOf(body) <= maxBodyDepth) return null;
  return reservationError('Request does not match the API specification', {
    details: [{ path: '/body', message: `must not nest deeper than ${maxBodyDepth} levels` }],
  });
}

/** The spec's `CatalogueItem` limits, applied before the schema (precheck.test.ts holds them to the spec). */
export const productCodeMaxLength = 64;
export const quantityMax = 10000;

type JsonObject = Record<string, unknown>;

/** The first seed rule `body` breaks, as the error to answer with; null when none applies. */
export function findSeedRuleViolation(body: unknown): AppError | null {
  if (!isJsonObject(body)) {
    return reservationError('Request does not match the API specification', {
      details: [{ path: '/body', message: 'must be object' }],
    });
  }
  const has = (field: string): boolean => Object.hasOwn(body, field);

  if (has('channel') && typeof ownField(body, 'channel') !== 'string') {
    return reservationError('Channel should be a string value');
  }
  if (!has('reservationAmount') && !has('catalogueItems')) {
    return reservationError('Either reservationAmount or catalogueItems is required');
  }
  const hasBothIds = has('redemptionId') && has('redeemerId');
  const hasOneId = has('redemptionId') !== has('redeemerId');
  if (hasOneId || (has('catalogueItems') && !hasBothIds)) {
    return reservationError('redemptionId and redeemerId, both are required');
  }
  return catalogueItemsViolation(ownField(body, 'catalogueItems'));
}

/**
 * Items whose `productCode` or `quantity` is malformed, listed exactly as sent
 * in request order. An entry that is not an object cannot be listed: the
 * spec's `InvalidCatalogueItem` is an object, so such a body is a plain
 * schema error.
 */
function catalogueItemsViolation(items: unknown): AppError | null {
  if (!Array.isArray(items)) return null; // absent, or the schema's to reject
  const notAnObject = items.findIndex((item) => !isJsonObject(item));
  if (notAnObject >= 0) {
    return reservationError('Request does not match the API specification', {
      details: [{ path: `/body/catalogueItems/${notAnObject}`, message: 'must be object' }],
    });
  }
  const invalid = items.filter((item: JsonObject) => !isWellFormedItem(item));
  return invalid.length > 0 ? reservationError('Invalid catalogue item(s)', { invalidCatalogueItems: invalid }) : null;
}

function isWellFormedItem(item: JsonObject): boolean {
  const productCode = ownField(item, 'productCode');
  const quantity = ownField(item, 'quantity');
  const productCodeOk =
    typeof productCode === 'string' && productCode.length > 0 && codePointLength(productCode) <= productCodeMaxLength;
  const quantityOk =
    !Object.hasOwn(item, 'quantity') ||
    (typeof quantity === 'number' && Number.isInteger(quantity) && quantity > 0 && quantity <= quantityMax);
  return productCodeOk && quantityOk;
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
