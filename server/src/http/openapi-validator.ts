import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { middleware as openApiValidatorMiddleware } from 'express-openapi-validator';
import type { ApiSpec } from './spec';

export interface ValidatorOptions {
  /** Tests turn it on: a response that breaks the spec becomes a 500. */
  validateResponses: boolean;
}

/**
 * express-openapi-validator for the API routes. It validates parameters,
 * headers and bodies (the first error only, as production should); API key
 * and session are checked by our own middlewares before it, so its security
 * checks are off. Requests for paths or methods the spec does not name are
 * 404/405 (mount it under the API prefix only: operational routes are not
 * in the spec).
 *
 * It takes the document `loadApiSpec` has validated, so it does not validate
 * it again; it still makes its own copy and looks for `$ref`s in it (it has
 * no option to skip that). Resolves, with the validator's middleware as one
 * handler, once it has loaded the document: it otherwise loads in the
 * background and a document it cannot use would surface as a 500 on the
 * first request instead of failing the start.
 */
export async function openApiValidator(app: Express, document: ApiSpec, options: ValidatorOptions): Promise<RequestHandler> {
  const handlers = openApiValidatorMiddleware({
    apiSpec: document,
    validateApiSpec: false,
    validateRequests: { allErrors: false, allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: options.validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    ignoreUndocumented: false,
  }) as unknown as RequestHandler[];
  await whenSpecLoaded(app, handlers);
  return asOneHandler(handlers);
}

/**
 * The validator's middleware functions as one handler, which the request
 * validation calls (request-validation.ts): each runs when the previous one
 * calls `next()`, with an Express layer's error handling (a throw or a
 * rejected promise goes to `next(error)`).
 */
function asOneHandler(handlers: readonly RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      // Like Express: any truthy value is an error.
      if (error) {
        next(error);
        return;
      }
      const handler = handlers[index++];
      if (!handler) {
        next();
        return;
      }
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise) result.then(undefined, (rejection: unknown) => next(rejection ?? new Error('Rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}

/**
 * Every handler the validator returns first awaits its spec promise and
 * passes a load failure to `next`; the first one also installs the path
 * parameter hooks on `req.app` (what the first real request would do). Call
 * it once with a request that carries only the app.
 */
function whenSpecLoaded(app: Express, handlers: RequestHandler[]): Promise<void> {
  const first = handlers[0];
  if (!first) return Promise.reject(new Error('express-openapi-validator returned no middleware'));
  return new Promise((resolve, reject) => {
    const probe = { app } as unknown as Request;
    const next: NextFunction = (error?: unknown) => (error ? reject(asError(error)) : resolve());
    void first(probe, {} as unknown as Response, next);
  });
}

function asError(error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(`express-openapi-validator cannot use the spec: ${reason}`, { cause: error });
}
