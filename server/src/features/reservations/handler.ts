import type { RequestHandler } from 'express';
import type { ReservationUpdateRequest, Services } from '../../domain/services';
import { authenticatedClient, memberSession, sessionMember } from '../../http/locals';

/**
 * Operation B: `PUT /client/users/{correlation_id}/reservations/{reservation_token}`.
 * Mounted by `createApp` on `routes.updateReservation`, after the checks.
 */
export function updateReservation(services: Services): RequestHandler<{ correlation_id: string; reservation_token: string }> {
  return async (req, res) => {
    const context = {
      client: authenticatedClient(res),
      session: memberSession(res),
      member: sessionMember(res),
      correlationId: req.params.correlation_id,
      reservationToken: req.params.reservation_token,
    };
    // The seed-rule pre-check and the schema have both passed on this body.
    const request = req.body as ReservationUpdateRequest;
    res.json(await services.reservations.updateReservation(context, request));
  };
}
