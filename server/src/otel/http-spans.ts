import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Span } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { Response } from 'express';
import { requestIdOf } from '../http/request-id';
import { operationOf, routes } from '../http/routes';

/** Probes and scrapes: a span each would bury the API's requests (a health check every few seconds per process). */
const untracedPaths: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/** The request's id (`X-Request-Id`), on its span: the id a partner quotes finds the trace. */
export const requestIdAttribute = 'loyalty.request_id';

/**
 * node:http's server span of each request, with the standard HTTP
 * attributes (method, path, status, client address, user agent). It is
 * named after the spec's operationId once the answer is sent
 * (`updateReservation`, ...; `tagOperation` recorded it), with the route as
 * `http.route`; a request outside the spec keeps the method as its name.
 */
export function httpInstrumentation(): HttpInstrumentation {
  return new HttpInstrumentation({
    // The server calls nothing over HTTP (the exporter's own requests are never traced).
    disableOutgoingRequestInstrumentation: true,
    ignoreIncomingRequestHook: (request) => untracedPaths.has(pathOf(request)),
    // No header becomes an attribute: X-Api-Key and Authorization carry
    // credentials. This is the instrumentation's default, written out so that
    // nobody adds a header list here without seeing why there is none.
    headersToSpanAttributes: { server: { requestHeaders: [], responseHeaders: [] } },
    applyCustomAttributesOnSpan: (span, _request, response) => nameAfterOperation(span, response as ServerResponse),
  });
}

function nameAfterOperation(span: Span, response: ServerResponse): void {
  const requestId = requestIdOf(response);
  if (requestId !== undefined) span.setAttribute(requestIdAttribute, requestId);
  // Express's response is node's, with `locals`; a request Express never saw has none.
  if (!('locals' in response)) return;
  const operation = operationOf(response as unknown as Response);
  if (operation === null) return;
  span.updateName(operation);
  span.setAttribute(ATTR_HTTP_ROUTE, routes[operation]);
}

function pathOf(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
