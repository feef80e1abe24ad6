import type { RequestHandler } from 'express';
import { reservationError, schemaError, type AppError } from '../../domain/errors';
import { depthOf, maxBodyDepth } from '../../http/body-depth';
import type { ReservationService } from '../../domain/services';
import { catalogueItemsMax, isJsonObject, isWellFormedItem, ownField } from './catalogue';

/**
 * Operation B's body rules that have their own message in the seed. They run
 * before schema validation so that these messages win over the validator's
 * generic ones, in the spec's order: channel type, amount-or-items, the
 * redemption pair, then the catalogue items. Everything else about the
 * body's form is left to the schema.
 *
 * A malformed catalogue item is found here, before the schema; whether the
 * other entries name known products only the store can say, so the answer
 * asks it: `invalidCatalogueItems` lists every offending entry at once.
 * Valid bodies never wait for it.
 */
type Catalogue = Pick<ReservationService, 'findInvalidCatalogueItems'>;

export function precheckReservationBody(catalogue: Catalogue): RequestHandler {
  return (req, _res, next) => {
    const body: unknown = req.body;
    const problem = tooDeep(body) ?? findSeedRuleViolation(body);
    if (problem) throw problem;
    const items = catalogueItemsOf(body);
    if (items && !items.every(isWellFormedItem)) return answerInvalidItems(catalogue, items);
    next();
  };
}

async function answerInvalidItems(catalogue: Catalogue, items: readonly unknown[]): Promise<never> {
  throw reservationError('Invalid catalogue item(s)', { invalidCatalogueItems: await catalogue.findInvalidCatalogueItems(items) });
}

/** The body's `catalogueItems` when it is an array (of objects, once the seed rules passed). */
function catalogueItemsOf(body: unknown): readonly unknown[] | null {
  const items = isJsonObject(body) && Object.hasOwn(body, 'catalogueItems') ? body.catalogueItems : undefined;
  return Array.isArray(items) ? items : null;
}

/**
 * A deeply nested body is refused before anything walks it recursively (the
 * validator, or `JSON.stringify` echoing an invalid catalogue item), which
 * could overflow the stack: 16 KiB of JSON nests thousands of levels.
 */
function tooDeep(body: unknown): AppError | null {
  if (depthOf(body) <= maxBodyDepth) return null;
  return schemaError({ path: '/body', message: `must not nest deeper than ${maxBodyDepth} levels` });
}

/** The first seed rule `body` breaks, as the error to answer with; null when none applies. */
function findSeedRuleViolation(body: unknown): AppError | null {
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
  const hasBothIds = has('redemptionId') && has('redeemerId');
  const hasOneId = has('redemptionId') !== has('redeemerId');
  if (hasOneId || (has('catalogueItems') && !hasBothIds)) {
    return reservationError('redemptionId and redeemerId, both are required');
  }
  return catalogueItemsViolation(ownField(body, 'catalogueItems'));
}

/**
 * The item list's own form. Past the spec's `maxItems` it is a schema error
 * before any entry is judged, so the store is never asked about more codes
 * than a valid request may carry. An entry that is not an object cannot be
 * listed in `invalidCatalogueItems` (the spec's `InvalidCatalogueItem` is an
 * object), so such a body is a plain schema error too.
 */
function catalogueItemsViolation(items: unknown): AppError | null {
  if (!Array.isArray(items)) return null; // absent, or the schema's to reject
  if (items.length > catalogueItemsMax) {
    return schemaError({ path: '/body/catalogueItems', message: `must NOT have more than ${catalogueItemsMax} items` });
  }
  const notAnObject = items.findIndex((item) => !isJsonObject(item));
  if (notAnObject < 0) return null;
  return schemaError({ path: `/body/catalogueItems/${notAnObject}`, message: 'must be object' });
}
