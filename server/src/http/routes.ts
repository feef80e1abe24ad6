import { Router, type RequestHandler, type Response } from 'express';

/** Everything under this prefix is the API of the contract; the rest is operational. */
export const apiPrefix = '/client';

/** Express paths of the spec's operations (`{param}` written `:param`). */
export const routes = {
  startSession: '/client/users/:correlation_id/sessions',
  listVoucherDefinitions: '/client/users/:correlation_id/voucher-definitions',
  updateReservation: '/client/users/:correlation_id/reservations/:reservation_token',
} as const;

/** The spec's operationIds. */
export type OperationId = keyof typeof routes;

const methods: Record<OperationId, 'get' | 'post' | 'put'> = {
  startSession: 'post',
  listVoucherDefinitions: 'get',
  updateReservation: 'put',
};

const operationKey = 'operationId';

/**
 * Records which operation a request is for, before any check runs, so that
 * the error middleware can pick the operation's documented error shape even
 * for errors raised before the OpenAPI validator has matched the route.
 */
export function operationTags(): Router {
  const router = Router();
  for (const operationId of Object.keys(routes) as OperationId[]) {
    const tag: RequestHandler = (_req, res, next) => {
      res.locals[operationKey] = operationId;
      next();
    };
    router[methods[operationId]](routes[operationId], tag);
  }
  return router;
}

/** The operation `operationTags` recorded, or null for any other request. */
export function operationOf(res: Response): OperationId | null {
  const tagged: unknown = res.locals[operationKey];
  return typeof tagged === 'string' && tagged in routes ? (tagged as OperationId) : null;
}
