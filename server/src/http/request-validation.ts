import type { RequestHandler } from 'express';
import Ajv from 'ajv';
import { schemaError } from '../domain/errors';
import { buildAcceptOnlyCheck } from './accept-only-check';
import type { RefusedBodyAnswer } from './operation-types';
import { specRoutes, type OperationId } from './routes';
import type { LoadedSpec } from './spec';

/**
 * Request validation of the API operations, against the spec: each part of
 * a request is validated once, by the spec's schemas.
 *
 * express-openapi-validator (EOV) is the reference: it decides every request
 * it sees and words every rejection. It is also slow per request (it
 * recompiles route patterns, re-parses the URL and each parameter's
 * definition, and goes through four promise-chained middleware functions).
 *
 * So each operation first gets an accept-only check (accept-only-check.ts),
 * compiled once at start from the same schemas, for requests of the plain
 * shape real clients send (no percent-encoding in the path, query values of
 * unreserved characters only, no repeated or unknown query parameter, no
 * body where none is defined, a body only as `Content-Type:
 * application/json`). A request it accepts meets every rule EOV applies to
 * it; anything else, valid or not, goes to EOV, which decides and words it.
 * The check never rejects a request, and none skips validation.
 *
 * On the way to EOV a body nested deeper than any document of the spec is
 * refused first: EOV, and the wording of a refusal, would walk it
 * recursively. (The accept-only check walks only as deep as the schemas go.)
 *
 * A body EOV refuses goes to its operation's own answer when the operation
 * has one (the hook its handler module gives, `RefusedBodyAnswer`): Operation
 * B's documented messages win over EOV's wording. Nothing here knows an
 * operation's rules.
 *
 * With `crossCheck` (tests, together with response validation), EOV runs on
 * every request the accept-only check accepts as well, and one EOV rejects is a 500
 * naming the disagreement, so any divergence fails the test suite.
 */
export interface RequestValidation {
  /**
   * For the route of `operation`: validates, then calls `next()`, or passes
   * the refusal on: the one `answerRefusedBody` gives, when it has one for
   * the request's body, else EOV's.
   */
  forOperation(operation: OperationId, answerRefusedBody?: RefusedBodyAnswer): RequestHandler;
  /** EOV alone, for every other request under the API prefix (its 404 and 405 answers). */
  fallback: RequestHandler;
}

export function createRequestValidation(spec: LoadedSpec, eov: RequestHandler, options: { crossCheck: boolean }): RequestValidation {
  const ajv = new Ajv({ strict: false, allErrors: false, coerceTypes: false, useDefaults: false, removeAdditional: false });
  return {
    forOperation(operation, answerRefusedBody) {
      const check = buildAcceptOnlyCheck(ajv, spec.dereferenced, specRoutes[operation]);
      const viaValidator = throughValidator(eov, answerRefusedBody);
      if (!check) return viaValidator;
      if (!options.crossCheck) return (req, res, next) => (check(req) ? next() : viaValidator(req, res, next));
      const mustAgree = validatorMustAgree(eov, operation);
      return (req, res, next) => (check(req) ? mustAgree(req, res, next) : viaValidator(req, res, next));
    },
    fallback: eov,
  };
}

/** EOV for a request the accept-only check did not accept: a too deep body refused first, a refused body answered by `answerRefusedBody` when it can. */
function throughValidator(eov: RequestHandler, answerRefusedBody: RefusedBodyAnswer | undefined): RequestHandler {
  return (req, res, next) => {
    if (depthOf(req.body) > maxBodyDepth) {
      next(schemaError({ path: '/body', message: `must not nest deeper than ${maxBodyDepth} levels` }));
      return;
    }
    if (!answerRefusedBody) {
      eov(req, res, next);
      return;
    }
    eov(req, res, onRequestVerdict(next, (refusal) => void answerRefusedBody(req.body).then((own) => next(own ?? refusal), next)));
  };
}

/** EOV for a request the accept-only check accepted (cross-check): a refusal is a 500 naming the disagreement. */
function validatorMustAgree(eov: RequestHandler, operation: OperationId): RequestHandler {
  return (req, res, next) => {
    eov(req, res, onRequestVerdict(next, (refusal) => {
      next(new Error(`the accept-only check of ${operation} accepted a request express-openapi-validator rejects: ${describe(refusal)}`));
    }));
  };
}

/**
 * EOV's callback: EOV calls back once for the request, and again if the
 * response breaks the spec (response validation, in tests). Only a refusal
 * in the first call is a verdict on the request and goes to `onRefusal`.
 */
function onRequestVerdict(next: (error?: unknown) => void, onRefusal: (refusal: unknown) => void): (error?: unknown) => void {
  let requestJudged = false;
  return (error?: unknown) => {
    const onRequest = !requestJudged;
    requestJudged = true;
    if (onRequest && error) onRefusal(error);
    else next(error);
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** No document of the spec nests deeper than this; a body within the size limit could nest thousands of levels. */
export const maxBodyDepth = 16;

/** Nesting depth of a parsed JSON value, computed without recursion; stops counting past the limit. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > maxBodyDepth) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}
