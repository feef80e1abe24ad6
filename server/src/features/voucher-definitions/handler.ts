import type { Services } from '../../domain/services';
import { answerJson } from '../../http/json-response';
import { authenticatedClient } from '../../http/locals';
import type { OperationHandler } from '../../http/operation-types';

/**
 * Operation A, and `HEAD` on it (the same answer without the body).
 * Mounted by `createApp` on `routes.listVoucherDefinitions`, after the checks.
 */
export function listVoucherDefinitions(services: Services): OperationHandler<'listVoucherDefinitions'> {
  return async (req, res) => {
    // Read `req.query` once: Express parses the query string on every access.
    const { businessUnit } = req.query;
    const definitions = await services.voucherDefinitions.listVoucherDefinitions(authenticatedClient(res), businessUnit);
    answerJson(req, res, definitions);
  };
}
