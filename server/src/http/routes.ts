import type { RequestHandler, Response } from 'express';
import type { operations, paths } from '@loyalty/openapi';
import type { HttpMethod } from 'openapi-typescript-helpers';
import { InvalidSpecError, loadApiSpec, type LoadedSpec } from './spec';

/** Everything under this prefix is the API of the contract; the rest is operational. */
export const apiPrefix = '/client';

/** The spec's operationIds, as generated from it. */
export type OperationId = keyof operations;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * Each path and method at which the generated `paths` put operation `Op`
 * (never when there is none). The comparison is structural: two operations
 * of the same type would be interchangeable here, which the check of the
 * document at start-up (`servedSpec`) rules out.
 */
export type SpecRoute<Op extends OperationId> = {
  [P in keyof paths]: {
    [M in HttpMethod]: Same<paths[P][M], operations[Op]> extends true ? { readonly method: M; readonly path: P } : never;
  }[HttpMethod];
}[keyof paths];

/**
 * Where each operation of the spec is, as the generated types say. Every
 * operation must be listed, at the path and method the spec gives it: a
 * renamed, moved or added operation (after `npm run generate`) fails the
 * type check here.
 */
export const specRoutes = {
  startSession: { method: 'post', path: '/client/users/{correlation_id}/sessions' },
  endSession: { method: 'delete', path: '/client/users/{correlation_id}/sessions/current' },
  listVoucherDefinitions: { method: 'get', path: '/client/users/{correlation_id}/voucher-definitions' },
  headVoucherDefinitions: { method: 'head', path: '/client/users/{correlation_id}/voucher-definitions' },
  updateReservation: { method: 'put', path: '/client/users/{correlation_id}/reservations/{reservation_token}' },
} as const satisfies { readonly [Op in OperationId]: SpecRoute<Op> };

type SpecRoutes = typeof specRoutes;

/** A spec path as Express writes it: `{name}` becomes `:name`. */
export type ExpressPath<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}` ? `${Head}:${Name}${ExpressPath<Tail>}` : P;

export function expressPath<P extends string>(specPath: P): ExpressPath<P> {
  return specPath.replace(/\{([^}/]+)\}/g, ':$1') as ExpressPath<P>;
}

export const operationIds = Object.keys(specRoutes) as OperationId[];

/** The Express path of each operation. */
export const routes = Object.fromEntries(operationIds.map((id) => [id, expressPath(specRoutes[id].path)])) as {
  readonly [Op in OperationId]: ExpressPath<SpecRoutes[Op]['path']>;
};

/** The HTTP method of each operation, lower-case as Express names its methods. */
export const methods = Object.fromEntries(operationIds.map((id) => [id, specRoutes[id].method])) as {
  readonly [Op in OperationId]: SpecRoutes[Op]['method'];
};

declare const checked: unique symbol;

/** A spec whose document has exactly the operations the server serves, at their routes: what `servedSpec` returns. */
export type ServedSpec = LoadedSpec & { readonly [checked]: true };

/** The spec at `specPath` (default: the project's), loaded (spec.ts) and checked by `servedSpec`. */
export async function loadServedSpec(specPath?: string): Promise<ServedSpec> {
  return servedSpec(await loadApiSpec(specPath));
}

/**
 * `spec`, once its document has exactly the operations of `specRoutes`,
 * each at its path and method; InvalidSpecError otherwise: a spec edited
 * after the server was built from it stops the start, naming what moved.
 * The app takes only a spec that passed here, so the check runs once.
 */
export function servedSpec(spec: LoadedSpec): ServedSpec {
  const documented = new Map<string, string>();
  for (const [specPath, pathItem] of Object.entries(spec.document.paths ?? {})) {
    for (const [method, operation] of Object.entries(pathItem ?? {})) {
      const operationId: unknown = typeof operation === 'object' && operation !== null ? (operation as { operationId?: unknown }).operationId : undefined;
      if (typeof operationId === 'string') documented.set(operationId, `${method.toUpperCase()} ${specPath}`);
    }
  }
  const expected = new Map(operationIds.map((id) => [id as string, `${specRoutes[id].method.toUpperCase()} ${specRoutes[id].path}`]));
  for (const [id, route] of expected) {
    const found = documented.get(id);
    if (found !== route) throw new InvalidSpecError(spec.source, `operation ${id} is ${found ? `at ${found}` : 'missing'}; the server serves it at ${route}`);
  }
  for (const [id, route] of documented) {
    if (!expected.has(id)) throw new InvalidSpecError(spec.source, `operation ${id} (${route}) is not one the server serves`);
  }
  return spec as ServedSpec;
}

const operationKey = 'operationId';
const paramsKey = 'operationParams';

/**
 * The first handler of each operation's route: records which operation the
 * request is for, and its path parameters, before any check runs, so that
 * the request metric counts an answer under its operation even when a check
 * refused it, and its log line and span can name the route.
 */
export function tagOperation(operationId: OperationId): RequestHandler {
  return (req, res, next) => {
    res.locals[operationKey] = operationId;
    res.locals[paramsKey] = req.params;
    next();
  };
}

/** The operation `tagOperation` recorded, or null for any other request. */
export function operationOf(res: Response): OperationId | null {
  const tagged: unknown = res.locals[operationKey];
  return typeof tagged === 'string' && tagged in specRoutes ? (tagged as OperationId) : null;
}

/** The path parameters of the operation `tagOperation` recorded (decoded, as Express gives them); empty for any other request. */
export function operationParamsOf(res: Response): Readonly<Record<string, string>> {
  return (res.locals[paramsKey] as Record<string, string> | undefined) ?? {};
}
