import { Router } from 'express';
import type { ReservationUpdateRequest, Services } from '../../domain/services';
import { routes } from '../../http/routes';
import { authenticatedClient, memberSession } from '../../http/locals';

/** Operation B: `PUT /client/users/{correlation_id}/reservations/{reservation_token}`. */
export function reservationsRouter(services: Services): Router {
  const router = Router();
  router.put(routes.updateReservation, async (req, res) => {
    const context = {
      client: authenticatedClient(res),
      session: memberSession(res),
      correlationId: req.params.correlation_id,
      reservationToken: req.params.reservation_token,
    };
    // The seed-rule pre-check and the schema have both passed on this body.
    const request = req.body as ReservationUpdateRequest;
    res.json(await services.reservations.updateReservation(context, request));
  });
  return router;
}
