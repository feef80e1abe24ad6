import { Router } from 'express';
import type { Services } from '../../domain/services';
import { routes } from '../../http/routes';
import { authenticatedClient } from '../../http/locals';

/** Operation A: `GET /client/users/{correlation_id}/voucher-definitions[?businessUnit=]`. */
export function voucherDefinitionsRouter(services: Services): Router {
  const router = Router();
  router.get(routes.listVoucherDefinitions, async (req, res) => {
    // The schema allows one string at most (a repeated parameter is a 400 before this).
    const businessUnit = typeof req.query.businessUnit === 'string' ? req.query.businessUnit : undefined;
    const definitions = await services.voucherDefinitions.listVoucherDefinitions(authenticatedClient(res), businessUnit);
    res.json(definitions);
  });
  return router;
}
