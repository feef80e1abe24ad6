import type { RequestHandler } from 'express';

/**
 * Several middleware functions as one: each runs when the previous one calls
 * `next()`, as if they were mounted one after the other, with the same error
 * handling as an Express layer (a throw or a rejected promise goes to
 * `next(error)`). One router layer instead of several: Express's per-layer
 * bookkeeping is a visible part of a request's cost.
 */
export function inSequence(handlers: readonly RequestHandler[]): RequestHandler {
  const [only] = handlers;
  if (handlers.length === 1 && only) return only;
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      // Like Express: any truthy value is an error (or 'route'/'router', which the router interprets).
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

