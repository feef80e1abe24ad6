import type { Services } from '../../domain/services';
import { memberSession } from '../../http/locals';
import type { OperationHandler } from '../../http/operation-types';

/**
 * Sign-out: ends the request's own session (the checks found it valid for
 * this client and member), then `204`.
 * Mounted by `createApp` on `routes.endSession`, after the checks.
 */
export function endSession(services: Services): OperationHandler<'endSession'> {
  return async (_req, res) => {
    await services.sessions.endSession(memberSession(res));
    res.status(204).end();
  };
}
