import express, { type Express, type Response } from 'express';
import type { Logger } from 'pino';
import type { AppConfig } from './config';
import { noMemberIds, type MemberIdPolicy } from './domain/member-ids';
import type { Services } from './domain/services';
import { answerRefusedReservationBody, updateReservation } from './features/reservations/handler';
import { endSession } from './features/sessions/end-handler';
import { startSession } from './features/sessions/handler';
import { listVoucherDefinitions } from './features/voucher-definitions/handler';
import { requireApiKey, requireSession, type CredentialChecks } from './http/auth';
import { corsPolicy, specMethods } from './http/cors';
import { docsRoutes } from './http/docs';
import { errorMiddleware, notFound } from './http/error-middleware';
import { everyAnswer } from './http/every-answer';
import { healthRoutes, type Liveness } from './http/health';
import { jsonBody } from './http/json-body';
import { answerJsonAsDocumented } from './http/json-response';
import { openApiValidator } from './http/openapi-validator';
import { createRequestValidation } from './http/request-validation';
import { apiPrefix, loadServedSpec, methods, operationOf, routes, tagOperation, type ServedSpec } from './http/routes';
import type { Metrics } from './metrics';
import type { RequestCounter } from './rate-limit/counter';
import { AuthFailureLimiter } from './rate-limit/auth-failures';
import { rateLimit } from './rate-limit/middleware';
import type { StoreLifecycle } from './store/port';

export interface AppDeps {
  services: Services;
  /** Only `/readyz` touches the store directly. */
  store: Pick<StoreLifecycle, 'ping'>;
  /** What `/healthz` reports (see health.ts); always live when absent. */
  liveness?: Liveness;
  /** True once the process is stopping: `/readyz` answers 503 while the API still serves. */
  stopping?: () => boolean;
  /** Counts each API key's requests for the rate limit; in this process when absent (see rate-limit/middleware.ts). */
  requestCounter?: RequestCounter;
  /** Requests, rate-limit refusals: counted here, served on a port of their own (main's metrics listener), never on the API's. */
  metrics?: Metrics;
  logger: Logger;
  /** `corsOrigins`: origins allowed besides those of the live publishable keys. */
  config: Pick<AppConfig, 'rateLimitPerMinute' | 'bodyLimitBytes' | 'trustProxy'> &
    Partial<Pick<AppConfig, 'corsOrigins' | 'sessionRateLimitPerMinute' | 'authFailuresPerMinute'>>;
  /** Validate every response against the spec (tests); a response that breaks it becomes a 500. */
  validateResponses?: boolean;
  /** The spec `main` loaded and checked before anything connected; loaded and checked here when absent. */
  spec?: ServedSpec;
  /** How the log lines and spans of requests show a member's id (absent: not at all). */
  memberIds?: MemberIdPolicy;
}

/**
 * Builds the HTTP app without listening. Async because the validator loads
 * the spec here (and, without `deps.spec`, the spec is read): a spec it
 * cannot use fails this call, not the first request.
 */
export async function createApp(deps: AppDeps): Promise<Express> {
  const { services, config } = deps;
  const spec = deps.spec ?? (await loadServedSpec());
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  // Express would hash every response body for an ETag, and could answer
  // an undocumented 304: only Operation A's answer has a tag, its own
  // (http/conditional.ts).
  app.set('etag', false);
  answerJsonAsDocumented(app);

  // Every response: security headers, request id, access log (every-answer.ts).
  const { metrics } = deps;
  const observeAnswer = metrics && ((res: Response, seconds: number) => metrics.observeRequest(operationOf(res) ?? 'other', res.statusCode, seconds));
  const memberIds = deps.memberIds ?? noMemberIds;
  app.use(everyAnswer(deps.logger, memberIds, observeAnswer));
  // CORS next, on the API's prefix only, before every check: a browser's
  // preflight carries no API key and must not count against the rate limit,
  // and the answers of the checks (a 401, a 403, a 429) must carry the CORS
  // headers for the page to read them. The operational routes (health, the
  // spec, its docs) are for operators, not pages: no page may read them.
  app.use(apiPrefix, corsPolicy({ listed: config.corsOrigins ?? [], ofKeys: () => services.auth.publishableOrigins() }, specMethods(spec.document)));

  // The API, its checks in the spec's order: API key, the key's use (its
  // kind, the request's Origin), session, rate limit (after the credentials,
  // so that a request refused for them counts against nothing), body size
  // and content type, request schema (a body it refuses gets the answer the
  // operation's handler module gives, when it has one), then the operation's
  // rules, each operation's route on the app itself. Any other request under
  // the prefix gets the API key and rate limit checks, then the validator's
  // 404 or 405.
  const checks: CredentialChecks = {
    auth: services.auth,
    failures: config.authFailuresPerMinute ? new AuthFailureLimiter({ perMinute: config.authFailuresPerMinute }) : null,
    ...(metrics && { onLimited: () => metrics.rateLimitRejection('refused_credentials') }),
  };
  const limitOf = rateLimit({
    keyPerMinute: config.rateLimitPerMinute,
    sessionPerMinute: config.sessionRateLimitPerMinute ?? 0,
    ...(deps.requestCounter && { keyCounter: deps.requestCounter }),
    ...(metrics && { onLimited: (limit) => metrics.rateLimitRejection(limit) }),
  });
  const limited = (route: { perSession: boolean }) => {
    const limiter = limitOf(route);
    return limiter ? [limiter] : [];
  };
  // The routes with a member's session (Operations A and B, sign-out): the
  // API key with the bearer token's session, the session itself, then the
  // limits per key and per session.
  const sessionChecks = [requireApiKey(checks, { withSession: true }), requireSession(checks), ...limited({ perSession: true })];
  const validateResponses = deps.validateResponses ?? false;
  const eov = await openApiValidator(app, spec.document, { validateResponses });
  const validation = createRequestValidation(spec, eov, { crossCheck: validateResponses });
  // HEAD first: Express would otherwise route it to the GET route. The same
  // chain and handler; Node sends the headers (Content-Length included) and
  // drops the body.
  for (const operation of ['headVoucherDefinitions', 'listVoucherDefinitions'] as const) {
    app[methods[operation]](
      routes[operation],
      tagOperation(operation),
      ...sessionChecks,
      validation.forOperation(operation),
      listVoucherDefinitions(services),
    );
  }
  app.put(
    routes.updateReservation,
    tagOperation('updateReservation'),
    ...sessionChecks,
    ...jsonBody(config.bodyLimitBytes),
    validation.forOperation('updateReservation', answerRefusedReservationBody(services)),
    updateReservation(services),
  );
  // Sessions after the operations: Express tries each route's path in turn.
  app.post(
    routes.startSession,
    tagOperation('startSession'),
    requireApiKey(checks, { startsSession: true }),
    ...limited({ perSession: false }),
    validation.forOperation('startSession'),
    startSession(services),
  );
  app.delete(
    routes.endSession,
    tagOperation('endSession'),
    ...sessionChecks,
    validation.forOperation('endSession'),
    endSession(services),
  );
  app.use(apiPrefix, requireApiKey(checks), ...limited({ perSession: false }), validation.fallback);

  // Operational routes: not part of the API contract, and outside its prefix.
  // Mounted after it, so that API requests do not walk through them.
  // `/metrics` is not one of them: it has a port of its own (main.ts).
  app.use(healthRoutes(deps.store, deps.liveness, deps.stopping), docsRoutes(spec.document));

  app.use(notFound);
  app.use(errorMiddleware);
  return app;
}

