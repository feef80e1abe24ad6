import type { Response } from 'express';
import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../caching/bounded-cache';
import { memberIdsOf, memberIdScrubber, noMemberIds, shownMemberId, type MemberIdPolicy } from '../domain/member-ids';
import { operationOf, operationParamsOf, specRoutes, type OperationId } from './routes';

/*
 * How a request's log line and span name it. By default neither holds the
 * member's id (the path's correlation id) nor a reservation token, as the
 * URL does: the route is the spec's path template, and the member is a keyed
 * hash of its id (`LOG_MEMBER_IDS`, docs/observability.md, Logs;
 * domain/member-ids.ts).
 */

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
    label.memberHash = hashedMemberId(policy, memberId);
  }
  return label;
}

/**
 * Members whose hashed id a policy keeps, at most (about 200 bytes each);
 * past it the least recently seen is hashed again. A member's page calls
 * again and again: its HMAC is made once, not once per log line.
 */
export const maxHashedMemberIds = 10_000;

const hashedIds = new WeakMap<MemberIdPolicy, LRUCache<string, string>>();

/** `shownMemberId` under a `hashed` policy, kept per policy and member. */
function hashedMemberId(policy: MemberIdPolicy, memberId: string): string {
  let kept = hashedIds.get(policy);
  if (!kept) hashedIds.set(policy, (kept = boundedCache({ maxEntries: maxHashedMemberIds })));
  let hashed = kept.get(memberId);
  if (hashed === undefined) kept.set(memberId, (hashed = shownMemberId(policy, memberId)));
  return hashed;
}

/** How a request that is no operation is named: `/docs/swagger-ui.css` gives `/docs/*`; `/healthz?x` gives `/healthz`. */
export function firstSegmentRoute(url: string): string {
  const path = url.split('?', 1)[0] ?? '/';
  const next = path.indexOf('/', 1);
  return next === -1 ? path : `${path.slice(0, next)}/*`;
}

/**
 * How the text of an error on a request's log line (its message, stack and
 * causes) shows ids: the request's member and every member the error
 * carries (a household's co-members, domain/member-ids.ts) as the policy
 * shows members, the reservation token as `{reservation_token}`, unless
 * the policy is `plain`: an error may quote them. Made when a failure is
 * logged, never for a request that succeeds.
 */
export function errorTextScrubber(res: Pick<Response, 'locals'>, error: unknown): (text: string) => string {
  const policy = (res.locals[policyKey] as MemberIdPolicy | undefined) ?? noMemberIds;
  const { correlation_id: memberId, reservation_token: token } = operationParamsOf(res as Response);
  const memberIds = memberIdsOf(error);
  if (memberId !== undefined) memberIds.add(memberId);
  return memberIdScrubber(policy, memberIds, token ? new Map([[token, '{reservation_token}']]) : undefined);
}
