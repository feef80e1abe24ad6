import { memberIdHash } from './secrets';

/*
 * How members' ids (their correlation ids) appear in log lines and spans
 * (LOG_MEMBER_IDS, docs/observability.md, Logs): the one way any id a
 * request or the store names reaches them.
 *
 * A log line names the request's own member (its path's correlation id) by
 * the policy. An error's text may quote other members: a household's
 * co-members whose balances the request read, or the members of an outbox
 * whose delivery failed. Ids are free-form (1 to 128 characters of any kind),
 * so no pattern can find them in a text: only the code that met them knows
 * them. So that code marks the error it lets through with them
 * (`withMemberIds`, on failure only: a successful request pays nothing), and
 * whoever logs the error shows them, with the ids it knows itself, as the
 * policy says (`memberIdScrubber`, over the error's message, stack and
 * causes). The ids travel with the error rather than in a per-request
 * collector because the error is what reaches the log, from a request or
 * from the outbox's sweep, which has no request; and a collector would cost
 * every successful request its upkeep.
 *
 * The values a database error quotes (a duplicate key's) are not ids anybody
 * met, and may be digests of keys and tokens as well as members' ids: the
 * MongoDB adapter's error translation lets none of them out at all, whatever
 * the policy (store/mongo/errors.ts).
 */

/** Not at all, a keyed hash (`memberIdHash`), or as it is. The reservation token never appears unless `plain`. */
export const memberIdModes = ['off', 'hashed', 'plain'] as const;
export type MemberIdMode = (typeof memberIdModes)[number];

export interface MemberIdPolicy {
  readonly mode: MemberIdMode;
  /** The deployment's log key (`memberIdHash`). */
  readonly key: Uint8Array;
}

/** The policy where none was given (tests, tools, a request no access log saw): no member's id shown. */
export const noMemberIds: MemberIdPolicy = Object.freeze({ mode: 'off', key: new Uint8Array() });

/** What stands for a member's id under `off`: the name of the path's parameter, as the route shows it. */
export const hiddenMemberId = '{correlation_id}';

/** What a log line or span shows for a member's id: its keyed hash, `hiddenMemberId`, or the id. */
export function shownMemberId(policy: MemberIdPolicy, correlationId: string): string {
  if (policy.mode === 'plain') return correlationId;
  return policy.mode === 'hashed' ? memberIdHash(policy.key, correlationId) : hiddenMemberId;
}

/**
 * Ids one error carries at most. Far more than a wallet's members; a bound
 * all the same, since an error object may be thrown again and again (a
 * shared one) and marked each time.
 */
export const maxCarriedMemberIds = 10_000;

/** Causes followed, as pino follows them when it logs an error. */
const maxCauseDepth = 8;

const carried = new WeakMap<object, Set<string>>();

/**
 * `error`, marked with the ids of the members whose data the failed work
 * held: its message or its causes may quote them, and the log shows them
 * only as the policy says (`memberIdsOf`). Marks add up, to
 * `maxCarriedMemberIds`. A thrown value that is no object cannot be marked
 * (and carries no message that could quote an id by mistake).
 */
export function withMemberIds<T>(error: T, ids: Iterable<string>): T {
  if (typeof error !== 'object' || error === null) return error;
  let known = carried.get(error);
  if (!known) carried.set(error, (known = new Set()));
  for (const id of ids) {
    if (known.size >= maxCarriedMemberIds) break;
    if (id !== '') known.add(id);
  }
  return error;
}

/** The ids `error`, its causes and an AggregateError's errors carry (`withMemberIds`). */
export function memberIdsOf(error: unknown): Set<string> {
  const ids = new Set<string>();
  const seen = new Set<object>();
  const visit = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null || depth > maxCauseDepth || seen.has(value)) return;
    seen.add(value);
    for (const id of carried.get(value) ?? []) ids.add(id);
    visit((value as { cause?: unknown }).cause, depth + 1);
    const errors = (value as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const inner of errors.slice(0, 100)) visit(inner, depth + 1);
  };
  visit(error, 0);
  return ids;
}

/**
 * A function that shows each of `memberIds` in a text as the policy says,
 * and each key of `others` (a reservation token) as its value unless the
 * policy is `plain`. One pass over the text, longest id first: a shorter
 * id inside a longer one, or inside a hash already put in, is left alone.
 * Under `plain` the text is given back as it is.
 */
export function memberIdScrubber(policy: MemberIdPolicy, memberIds: Iterable<string>, others?: ReadonlyMap<string, string>): (text: string) => string {
  if (policy.mode === 'plain') return unchanged;
  const shown = new Map<string, string>();
  for (const [value, replacement] of others ?? []) if (value !== '') shown.set(value, replacement);
  for (const id of memberIds) if (id !== '') shown.set(id, shownMemberId(policy, id));
  if (shown.size === 0) return unchanged;
  const pattern = new RegExp(
    [...shown.keys()]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
  return (text) => text.replace(pattern, (found) => shown.get(found) ?? found);
}

function unchanged(text: string): string {
  return text;
}

/** `RegExp.escape` is Node 24's; the server runs on 22 too. */
function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}
