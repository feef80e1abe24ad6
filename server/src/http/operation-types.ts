import type { Request, RequestHandler } from 'express';
import type { operations } from '@loyalty/openapi';
import type { RequestBodyJSON, SuccessResponseJSON } from 'openapi-typescript-helpers';
import type { OperationId } from './routes';

/**
 * What an operation's handler receives and answers, as the types generated
 * from the spec say. A renamed parameter or field (after `npm run generate`)
 * fails the type check where a handler uses it.
 *
 * Express only asserts these types. They hold because every operation's
 * route runs the request validation before its handler (see `createApp`).
 */

type ParametersOf<Op extends OperationId> = operations[Op]['parameters'];

/** What a generated `never` (the spec defines none) means to a handler: nothing. */
type NoneAsEmpty<T> = [T] extends [never] ? Record<string, never> : T;

export type PathParameters<Op extends OperationId> = ParametersOf<Op>['path'];
export type QueryParameters<Op extends OperationId> = NoneAsEmpty<NonNullable<ParametersOf<Op>['query']>>;
export type HeaderParameters<Op extends OperationId> = NoneAsEmpty<NonNullable<ParametersOf<Op>['header']>>;
/** The JSON body of the request; `never` when the operation takes none. */
export type RequestBody<Op extends OperationId> = RequestBodyJSON<operations[Op]>;
/** The JSON body of its success answer (`undefined` when that has none, as HEAD's). */
export type SuccessBody<Op extends OperationId> = SuccessResponseJSON<operations[Op]>;

export type OperationHandler<Op extends OperationId> = RequestHandler<PathParameters<Op>, SuccessBody<Op>, RequestBody<Op>, QueryParameters<Op>>;

/**
 * An operation's own answer to a body the request validation refused (the
 * body as parsed, of any shape); null when the validator's answer stands.
 * Its handler module gives it, and `createApp` hands it to the route's
 * validation (request-validation.ts).
 */
export type RefusedBodyAnswer = (body: unknown) => Promise<Error | null>;

/** A header parameter of the operation, as validated (undefined when an optional one is absent). */
export function headerParameter<Op extends OperationId, Name extends keyof HeaderParameters<Op> & string>(
  req: Request,
  _operation: Op,
  name: Name,
): HeaderParameters<Op>[Name] {
  return req.get(name) as HeaderParameters<Op>[Name];
}
