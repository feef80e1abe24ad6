import { reservationError, schemaError, type AppError } from '../../domain/errors';
import type { ReservationService } from '../../domain/services';
import { catalogueItemsMax, isJsonObject, isWellFormedItem, ownField } from './catalogue';

/*
 * Operation B's body rules that have a message of their own in the contract
 * (the spec lists each), in the spec's order: channel type, amount-or-items, the redemption pair, then
 * the catalogue items.
 *
 * The spec's schema states all of them but the redemption pair. So a body
 * the request validation accepts breaks none of them but that one, which
 * the service checks first (`redemptionPairProblem`); a body it refuses is
 * answered with the message of the first rule broken, when there is one,
 * instead of the validator's generic wording (`documentedAnswerToRefusedBody`).
 */

/** `redemptionId` and `redeemerId` go together, and `catalogueItems` needs both: the rule the schema does not state. */
export function redemptionPairProblem(body: object): AppError | null {
  const has = (field: string): boolean => Object.hasOwn(body, field);
  const hasBothIds = has('redemptionId') && has('redeemerId');
  const hasOneId = has('redemptionId') !== has('redeemerId');
  if (hasOneId || (has('catalogueItems') && !hasBothIds)) return reservationError('redemptionId and redeemerId, both are required');
  return null;
}

type Catalogue = Pick<ReservationService, 'findInvalidCatalogueItems'>;

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
  return reservationError('Invalid catalogue item(s)', { invalidCatalogueItems: await catalogue.findInvalidCatalogueItems(items) });
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
