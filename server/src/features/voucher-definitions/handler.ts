import type { Services, VoucherListing } from '../../domain/services';
import type { ClientRecord } from '../../domain/model';
import { answerTagged, entityTag } from '../../http/conditional';
import { authenticatedClient } from '../../http/locals';
import type { OperationHandler } from '../../http/operation-types';

/**
 * Operation A, and `HEAD` on it (the same answer without the body), tagged
 * for the client and the business unit: `304` when `If-None-Match` names the tag.
 * Mounted by `createApp` on `routes.listVoucherDefinitions`, after the checks.
 */
export function listVoucherDefinitions(services: Services): OperationHandler<'listVoucherDefinitions'> {
  return async (req, res) => {
    // Read `req.query` once: Express parses the query string on every access.
    const { businessUnit } = req.query;
    const client = authenticatedClient(res);
    const listing = await services.voucherDefinitions.listVoucherDefinitions(client, businessUnit);
    answerTagged(req, res, listing.summaries, listingTag(client, listing));
  };
}

/** The `ETag` of a client's listing: its bytes, the client and the business unit. */
export function listingTag(client: ClientRecord, listing: VoucherListing): string {
  return entityTag(listing.summaries, [client.clientId, listing.businessUnit]);
}
