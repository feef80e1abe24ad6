import type { RequestHandler } from 'express';
import type { Services } from '../../domain/services';
import { answerJson } from '../../http/json-response';
import { authenticatedClient } from '../../http/locals';

/**
 * Operation A: `GET /client/users/{correlation_id}/voucher-definitions[?businessUnit=]`,
 * and `HEAD` on it (the same answer without the body). Mounted by
 * `createApp` on `routes.listVoucherDefinitions`, after the checks.
 */
export function listVoucherDefinitions(services: Services): RequestHandler {
  return async (req, res) => {
    // The schema allows one string at most (a repeated parameter is a 400 before this).
    // Read `req.query` once: Express parses the query string on every access.
    const requested = req.query.businessUnit;
    const businessUnit = typeof requested === 'string' ? requested : undefined;
    const definitions = await services.voucherDefinitions.listVoucherDefinitions(authenticatedClient(res), businessUnit);
    answerJson(req, res, definitions);
  };
}
