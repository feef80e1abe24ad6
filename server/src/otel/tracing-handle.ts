import type { RequestCounter } from '../rate-limit/counter';
import type { Store } from '../store/port';

/*
 * The handle of tracing, as a type only: `tracing.ts` (which starts it) and
 * `otel/start.ts` (which builds it) both name it, neither through the other.
 */

/** What the rest of the server uses of tracing, once it is on. */
export interface Tracing {
  /** The store with a span around each call made within a traced request. */
  traceStore(store: Store): Store;
  /** The rate limit's count with a span around each count made within a traced request. */
  traceRequestCounter(counter: RequestCounter): RequestCounter;
  /** pino's `mixin`: the trace and span ids of the active span, on every log line written within a traced request. */
  logFields: () => Record<string, string>;
  /** For the start-up log line: how and where spans are sent. */
  readonly description: string;
  /** OpenTelemetry's own warnings and errors (a collector that does not answer) go to this log from now on. */
  reportProblemsTo(logger: { warn(message: string): void }): void;
  /** Sends the spans still queued, then stops; bounded in time, never rejects. */
  shutdown(): Promise<void>;
}
