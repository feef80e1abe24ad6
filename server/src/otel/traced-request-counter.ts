import { context, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import type { RequestCounter, WindowCount } from '../rate-limit/counter';
import { markFailed, settle } from './traced-store';

/** The span of the rate limit's count. */
export const rateLimitSpanName = 'rateLimitCount';
/** The key's requests in its window, this one included. */
export const rateLimitHitsAttribute = 'loyalty.rate_limit.hits';

/**
 * The rate limit's count with a span around each count made within a
 * traced request: on MongoDB every request waits for one `findAndModify`
 * (the command's span is its child). Only the asynchronous counter is
 * wrapped (composition.ts): the in-process count takes microseconds.
 */
export function tracedRequestCounter(counter: RequestCounter, tracer: Tracer): RequestCounter {
  return {
    hit(key) {
      if (trace.getSpan(context.active()) === undefined) return counter.hit(key);
      return tracer.startActiveSpan(rateLimitSpanName, { kind: SpanKind.INTERNAL }, (span) => {
        let counted: WindowCount | Promise<WindowCount>;
        try {
          counted = counter.hit(key);
        } catch (error) {
          markFailed(span, error);
          span.end();
          throw error;
        }
        const recorded = (count: WindowCount) => {
          span.setAttribute(rateLimitHitsAttribute, count.hits);
          return count;
        };
        if (!(counted instanceof Promise)) {
          recorded(counted);
          span.end();
          return counted;
        }
        return settle(span, counted.then(recorded));
      });
    },
  };
}
