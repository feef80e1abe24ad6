import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { AppConfig } from './config';
import type { Services } from './domain/services';
import { precheckReservationBody } from './features/reservations/precheck';
import { reservationsRouter } from './features/reservations/handler';
import { sessionsRouter } from './features/sessions/handler';
import { voucherDefinitionsRouter } from './features/voucher-definitions/handler';
import { accessLog } from './http/access-log';
import { requireApiKey, requireSession } from './http/auth';
import { docsRoutes } from './http/docs';
import { errorMiddleware, notFound } from './http/error-middleware';
import { healthRoutes } from './http/health';
import { jsonBody } from './http/json-body';
import { openApiValidator } from './http/openapi-validator';
import { rateLimitPerClient } from './http/rate-limit';
import { requestId } from './http/request-id';
import { apiPrefix, operationTags, routes } from './http/routes';
import { securityHeaders } from './http/security-headers';
import { loadApiSpec } from './http/spec';
import type { Store } from './store/port';

export interface AppDeps {
  services: Services;
  /** Only `/readyz` touches the store directly. */
  store: Pick<Store, 'ping'>;
  logger: Logger;
  config: Pick<AppConfig, 'rateLimitPerMinute' | 'bodyLimitBytes' | 'trustProxy'>;
  /** Validate every response against the spec (tests); a response that breaks it becomes a 500. */
  validateResponses?: boolean;
  /** Defaults to the repository's `openapi/openapi.yaml`. */
  specPath?: string;
}

/**
 * Builds the HTTP app without listening. Async because the spec is read and
 * validated here: a broken spec fails this call, not the first request.
 */
export async function createApp(deps: AppDeps): Promise<Express> {
  const { services, config } = deps;
  const spec = await loadApiSpec(deps.specPath);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);

  // Every response: request id, access log, security headers.
  app.use(requestId(), accessLog(deps.logger), securityHeaders());

  // Operational routes: not part of the API contract, so mounted before its validator.
  app.use(healthRoutes(deps.store), docsRoutes(spec));

  // The API, its checks in the spec's order: API key, rate limit, body size
  // and content type, session, request schema, then the operation's rules.
  app.use(operationTags());
  app.use(apiPrefix, requireApiKey(services.auth));
  const rateLimiter = rateLimitPerClient(config.rateLimitPerMinute);
  if (rateLimiter) app.use(apiPrefix, rateLimiter);
  app.put(routes.updateReservation, jsonBody(config.bodyLimitBytes));
  app.get(routes.listVoucherDefinitions, requireSession(services.auth));
  app.put(routes.updateReservation, requireSession(services.auth), precheckReservationBody);
  const validator = await openApiValidator(app, spec, { validateResponses: deps.validateResponses ?? false });
  app.use(apiPrefix, validator);
  app.use(sessionsRouter(services), voucherDefinitionsRouter(services), reservationsRouter(services));

  app.use(notFound);
  app.use(errorMiddleware);
  return app;
}
