import type { Response } from 'express';
import type { MemberIdMode } from '../config';
import { memberIdHash } from '../domain/secrets';
import { operationOf, operationParamsOf, specRoutes, type OperationId } from './routes';

/**
 * How a request's log line and span name it. By default neither holds the
 * member's id (the path's correlation id) nor a reservation token, as the
 * URL does: the route is the spec's path template, and the member is a keyed
 * hash of its id (`LOG_MEMBER_IDS`, docs/observability.md, Logs).
 */
export interface MemberIdPolicy {
  readonly mode: MemberIdMode;
  /** The deployment's log key (`memberIdHash`). */
  readonly key: Uint8Array;
}

export interface RequestLabel {
  /** The spec's operationId; `other` for any other request (as the metrics say). */
  readonly operation: OperationId | 'other';
  /**
   * The operation's path template (`/client/users/{correlation_id}/sessions`).
   * Any other request: its first path segment, the rest as `*`
   * (`/docs/*`, `/client/*`): the rest may hold ids.
   */
  readonly route: string;
  /** `hashed`: the keyed hash of the member's id. */
  readonly memberHash?: string;
  /** `plain`: the member's id. */
  readonly memberId?: string;
  /** `plain`: the URL as sent. */
  readonly url?: string;
}

const policyKey = 'memberIdPolicy';
const labelKey = 'requestLabel';

/** Where `requestLabel` finds the policy: set once per request, before anything can answer it (the access log does). */
export function applyMemberIdPolicy(res: Pick<Response, 'locals'>, policy: MemberIdPolicy): void {
  res.locals[policyKey] = policy;
}

/** The label of a request, made once and kept with it (the log line and the span both ask). */
export function requestLabel(req: { originalUrl?: string; url?: string }, res: Response): RequestLabel {
  const known = res.locals[labelKey] as RequestLabel | undefined;
  if (known) return known;
  const label = labelOf(req, res);
  res.locals[labelKey] = label;
  return label;
}

function labelOf(req: { originalUrl?: string; url?: string }, res: Response): RequestLabel {
  const policy = res.locals[policyKey] as MemberIdPolicy | undefined;
  const mode = policy?.mode ?? 'off';
  const operation = operationOf(res);
  const route = operation ? specRoutes[operation].path : firstSegmentRoute(req.originalUrl ?? req.url ?? '/');
  const memberId = operationParamsOf(res).correlation_id;
  const label: { -readonly [K in keyof RequestLabel]: RequestLabel[K] } = { operation: operation ?? 'other', route };
  if (mode === 'plain') {
    label.url = req.originalUrl ?? req.url ?? '/';
    if (memberId !== undefined) label.memberId = memberId;
  } else if (mode === 'hashed' && memberId !== undefined && policy) {
    label.memberHash = memberIdHash(policy.key, memberId);
  }
  return label;
}

/** How a request that is no operation is named: `/docs/swagger-ui.css` gives `/docs/*`; `/healthz?x` gives `/healthz`. */
export function firstSegmentRoute(url: string): string {
  const path = url.split('?', 1)[0] ?? '/';
  const next = path.indexOf('/', 1);
  return next === -1 ? path : `${path.slice(0, next)}/*`;
}

/**
 * `text` (an error's message or stack, on a request's log line) with the
 * request's member id and reservation token replaced by what the label
 * shows instead, unless the policy is `plain`: an error may quote them.
 */
export function withoutRequestIds(text: string, res: Response): string {
  const label = res.locals[labelKey] as RequestLabel | undefined;
  if (!label || label.url !== undefined) return text;
  const { correlation_id: memberId, reservation_token: token } = operationParamsOf(res);
  let shown = text;
  if (token) shown = shown.replaceAll(token, '{reservation_token}');
  if (memberId) shown = shown.replaceAll(memberId, label.memberHash ?? '{correlation_id}');
  return shown;
}
