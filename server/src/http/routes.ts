import type { RequestHandler, Response } from 'express';

/** Everything under this prefix is the API of the contract; the rest is operational. */
export const apiPrefix = '/client';

/** Express paths of the spec's operations (`{param}` written `:param`). */
export const routes = {
  startSession: '/client/users/:correlation_id/sessions',
  listVoucherDefinitions: '/client/users/:correlation_id/voucher-definitions',
  headVoucherDefinitions: '/client/users/:correlation_id/voucher-definitions',
  updateReservation: '/client/users/:correlation_id/reservations/:reservation_token',
} as const;

/** The spec's operationIds. */
export type OperationId = keyof typeof routes;

/** The HTTP method of each operation. */
export const methods: Readonly<Record<OperationId, 'get' | 'head' | 'post' | 'put'>> = {
  startSession: 'post',
  listVoucherDefinitions: 'get',
  headVoucherDefinitions: 'head',
  updateReservation: 'put',
};

const operationKey = 'operationId';

/**
 * The first handler of each operation's route: records which operation the
 * request is for, before any check runs, so that the request metric counts
 * an answer under its operation even when a check refused it.
 */
export function tagOperation(operationId: OperationId): RequestHandler {
  return (_req, res, next) => {
    res.locals[operationKey] = operationId;
    next();
  };
}

/** The operation `tagOperation` recorded, or null for any other request. */
export function operationOf(res: Response): OperationId | null {
  const tagged: unknown = res.locals[operationKey];
  return typeof tagged === 'string' && tagged in routes ? (tagged as OperationId) : null;
}
