import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';

/** Array items a statement shows: a wallet's reservations would otherwise make one attribute of megabytes. */
const maxArrayItems = 3;
/** Longest `db.query.text`. */
const maxStatementLength = 1024;

/**
 * A span for each MongoDB command the driver sends within a traced request
 * (a store call's, a rate-limit count's), as the child of that call's span.
 * Commands outside any request (the watchdog's pings, the monitor's
 * heartbeats, start-up indexes and seeding) make none.
 */
export function mongoInstrumentation(): MongoDBInstrumentation {
  return new MongoDBInstrumentation({
    requireParentSpan: true,
    dbStatementSerializer: statementShape,
  });
}

/**
 * The command's shape, every value replaced by `?` (as the
 * instrumentation's default does: values hold members' data and digests of
 * keys and tokens), arrays cut to their first items and the whole to
 * `maxStatementLength` characters.
 */
export function statementShape(command: Record<string, unknown>): string {
  const seen = new WeakSet<object>();
  const text = JSON.stringify(command, (_key, value: unknown) => {
    if (value === null || typeof value !== 'object') return '?';
    if (seen.has(value)) return '[Circular]';
    seen.add(value);
    return Array.isArray(value) && value.length > maxArrayItems ? value.slice(0, maxArrayItems) : value;
  });
  return text.length > maxStatementLength ? `${text.slice(0, maxStatementLength)}…` : text;
}
