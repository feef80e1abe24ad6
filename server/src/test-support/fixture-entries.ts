/**
 * Builders of fixture entries for every test, the pact provider and the
 * bench: the JSON `parseFixture` takes (features/load/fixture-schema.ts),
 * each as small as the schema allows, so that the loader's defaults apply
 * to what an override does not give. Like the domain records' builders
 * (store/test-support/records.ts), each gives a typical entry that
 * `overrides` change, copied. They live here, above the loader, because
 * the store's own test support may not import the loader's format.
 *
 * The bench compiles this file too: at run time it loads the record
 * builders alone (of the format it takes only types).
 */
import type {
  FixtureCatalogueItem,
  FixtureClient,
  FixtureMember,
  FixtureRedemption,
  FixtureReservation,
  FixtureVoucherDefinition,
} from '../features/load/fixture-schema';
import { catalogueItemRecord, copied, definitionRecord, redemptionRecord, reservationOf, type Contributions } from '../store/test-support/records';

/** A client with one API key, enabled for LCL; the schema's defaults for the rest. */
export function fixtureClient(clientId: string, apiKey: string, overrides: Partial<FixtureClient> = {}): FixtureClient {
  return { clientId, apiKey, enabledBusinessUnits: ['LCL'], ...copied(overrides) };
}

/** A member of no household; the schema's defaults for the rest (eligible, no privileges). */
export function fixtureMember(correlationId: string, pointBalance: number, overrides: Partial<FixtureMember> = {}): FixtureMember {
  return { correlationId, pointBalance, ...copied(overrides) };
}

/**
 * A reservation of partner-app made with a card number, its amount the sum of
 * its contributions; expiry and creation are the loader's (now) unless given.
 */
export function fixtureReservation(
  reservationToken: string,
  correlationId: string,
  contributions: Contributions,
  overrides: Partial<FixtureReservation> = {},
): FixtureReservation {
  return { ...reservationOf(reservationToken, correlationId, contributions), ...copied(overrides) };
}

/** See `definitionRecord`: a fixture gives a definition in the same shape. */
export function fixtureDefinition(voucherDefinitionId: string, overrides: Partial<FixtureVoucherDefinition> = {}): FixtureVoucherDefinition {
  return definitionRecord(voucherDefinitionId, overrides);
}

/** See `catalogueItemRecord`: a fixture gives an item in the same shape. */
export function fixtureCatalogueItem(productCode: string, overrides: Partial<FixtureCatalogueItem> = {}): FixtureCatalogueItem {
  return catalogueItemRecord(productCode, overrides);
}

/** See `redemptionRecord`: a fixture gives a redemption in the same shape. */
export function fixtureRedemption(redemptionId: string, redeemerId: string, overrides: Partial<FixtureRedemption> = {}): FixtureRedemption {
  return redemptionRecord(redemptionId, redeemerId, overrides);
}
