import type { Services } from '../../domain/services';
import { authenticatedClient, memberSession, sessionMember } from '../../http/locals';
import type { OperationHandler, RefusedBodyAnswer } from '../../http/operation-types';

/**
 * Operation B. Mounted by `createApp` on `routes.updateReservation`, after
 * the checks.
 */
export function updateReservation(services: Services): OperationHandler<'updateReservation'> {
  return async (req, res) => {
    const context = {
      client: authenticatedClient(res),
      session: memberSession(res),
      member: sessionMember(res),
      correlationId: req.params.correlation_id,
      reservationToken: req.params.reservation_token,
    };
    res.json(await services.reservations.updateReservation(context, req.body));
  };
}

/**
 * Operation B's answer to a body the request validation refused: the
 * documented message of the first body rule it breaks (body-rules.ts),
 * which wins over the validator's wording. Mounted by `createApp` with the
 * route's validation.
 */
export function answerRefusedReservationBody(services: Services): RefusedBodyAnswer {
  return (body) => services.reservations.documentedAnswerToRefusedBody(body);
}
