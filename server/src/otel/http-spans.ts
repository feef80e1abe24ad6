import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Attributes, Span } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ATTR_HTTP_ROUTE, ATTR_URL_PATH, ATTR_URL_QUERY } from '@opentelemetry/semantic-conventions';
import type { Response } from 'express';
import type { MemberIdMode } from '../domain/member-ids';
import { requestIdOf } from '../http/request-id';
import { firstSegmentRoute, requestLabel } from '../http/request-label';

/** Probes and scrapes: a span each would bury the API's requests (a health check every few seconds per process). */
const untracedPaths: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/** The request's id (`X-Request-Id`), on its span: the id a partner quotes finds the trace. */
export const requestIdAttribute = 'loyalty.request_id';

/** OpenTelemetry's attributes of the user a request acts for: anonymised, or as it is (`LOG_MEMBER_IDS`). */
const userHashAttribute = 'user.hash';
const userIdAttribute = 'user.id';

/**
 * node:http's server span of each request, with the standard HTTP
 * attributes (method, path, status, client address, user agent). It is
 * named after the spec's operationId once the answer is sent
 * (`updateReservation`, ...; `tagOperation` recorded it), with the spec's
 * path template as `http.route`. Unless `memberIds` is `plain`, the span
 * holds neither the member's id nor the reservation token, as the logs
 * (request-label.ts): `url.path` is the route, query values are redacted,
 * and the member is `user.hash`.
 */
export function httpInstrumentation(memberIds: MemberIdMode): HttpInstrumentation {
  return new HttpInstrumentation({
    // The server calls nothing over HTTP (the exporter's own requests are never traced).
    disableOutgoingRequestInstrumentation: true,
    ignoreIncomingRequestHook: (request) => untracedPaths.has(pathOf(request)),
    // No header becomes an attribute: X-Api-Key and Authorization carry
    // credentials. This is the instrumentation's default, written out so that
    // nobody adds a header list here without seeing why there is none.
    headersToSpanAttributes: { server: { requestHeaders: [], responseHeaders: [] } },
    ...(memberIds !== 'plain' && { startIncomingSpanHook: withoutIdsInUrl }),
    // Outgoing requests are not traced: the request is always a server's IncomingMessage.
    applyCustomAttributesOnSpan: (span, request, response) => nameAfterOperation(span, request as IncomingMessage, response as ServerResponse),
  });
}

/**
 * The URL's attributes as the span starts, before the route is known: the
 * path's first segment (as the log names a request that is no operation),
 * each query value `REDACTED`. An operation's route replaces the path once
 * it is answered.
 */
function withoutIdsInUrl(request: IncomingMessage): Attributes {
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  const attributes: Attributes = { [ATTR_URL_PATH]: firstSegmentRoute(url) };
  if (query !== -1) {
    const params = new URLSearchParams(url.slice(query + 1));
    for (const name of new Set(params.keys())) params.set(name, 'REDACTED');
    attributes[ATTR_URL_QUERY] = params.toString();
  }
  return attributes;
}

function nameAfterOperation(span: Span, request: IncomingMessage, response: ServerResponse): void {
  const requestId = requestIdOf(response);
  if (requestId !== undefined) span.setAttribute(requestIdAttribute, requestId);
  // Express's response is node's, with `locals`; a request Express never saw has none.
  if (!('locals' in response)) return;
  const label = requestLabel(request, response as unknown as Response);
  if (label.memberHash !== undefined) span.setAttribute(userHashAttribute, label.memberHash);
  if (label.memberId !== undefined) span.setAttribute(userIdAttribute, label.memberId);
  if (label.operation === 'other') return;
  span.updateName(label.operation);
  span.setAttribute(ATTR_HTTP_ROUTE, label.route);
  if (label.url === undefined) span.setAttribute(ATTR_URL_PATH, label.route);
}

function pathOf(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
