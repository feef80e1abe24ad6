import type { RequestFailureReason } from '../errors';
import { withBody } from '../response';
import { MAX_TIMER_MS, untilAborted } from './abort';

export type FetchFn = (request: Request) => Promise<Response>;

/** Why one attempt got no answer; the transport turns it into a LoyaltyRequestError. */
export class AttemptFailure {
  constructor(
    readonly reason: RequestFailureReason,
    readonly cause: unknown,
    readonly status?: number,
  ) {}
}

/**
 * Every answer of the API is JSON. A 2xx that is not (a captive portal's
 * login page, say) would make openapi-fetch throw a bare SyntaxError; this
 * makes it a typed `invalid-response` instead.
 */
function assertJson(bytes: ArrayBuffer, status: number): void {
  if (bytes.byteLength === 0) return;
  try {
    JSON.parse(new TextDecoder().decode(bytes));
  } catch (cause) {
    throw new AttemptFailure('invalid-response', cause, status);
  }
}

/**
 * One attempt: sends a fresh copy of `request` and reads the whole answer,
 * all within `timeoutMs` (0 or Infinity: no limit), and stops as soon as
 * the caller's signal (`request.signal`) aborts.
 *
 * The body is read here, inside the deadline, because openapi-fetch reads it
 * only after the transport has returned: a server that sends headers and then
 * stalls would otherwise hang the call past its timeout. API answers are small
 * JSON documents, so buffering them costs nothing that matters.
 */
export async function attemptOnce(
  fetch: FetchFn,
  request: Request,
  body: ArrayBuffer | undefined,
  timeoutMs: number,
): Promise<Response> {
  const callerSignal = request.signal;
  if (callerSignal.aborted) throw new AttemptFailure('aborted', callerSignal.reason);

  // One controller per attempt, aborted by whichever comes first: the
  // caller's signal or this attempt's deadline. (AbortSignal.any would do,
  // but it needs Node 20.3 and recent browsers; this works everywhere.)
  const controller = new AbortController();
  let abortedBy: 'timeout' | 'aborted' | undefined;
  const onCallerAbort = (): void => {
    abortedBy ??= 'aborted';
    controller.abort(callerSignal.reason);
  };
  callerSignal.addEventListener('abort', onCallerAbort, { once: true });
  const timer =
    timeoutMs > 0 && timeoutMs < Infinity
      ? setTimeout(
          () => {
            abortedBy ??= 'timeout';
            controller.abort(new Error(`No answer within ${timeoutMs} ms`));
          },
          Math.min(timeoutMs, MAX_TIMER_MS),
        )
      : undefined;

  try {
    // `new Request(request, init)` keeps method, URL and headers (with the
    // credentials and request id the middleware set) and takes the buffered
    // body, so every attempt sends the same bytes.
    const attempt = new Request(request, { body, signal: controller.signal });
    const response = await untilAborted(fetch(attempt), controller.signal);
    if (response.body === null) return response;
    const bytes = await untilAborted(response.arrayBuffer(), controller.signal);
    if (response.ok) assertJson(bytes, response.status);
    return withBody(response, bytes);
  } catch (cause) {
    if (cause instanceof AttemptFailure) throw cause;
    throw new AttemptFailure(abortedBy ?? 'network', cause);
  } finally {
    clearTimeout(timer);
    callerSignal.removeEventListener('abort', onCallerAbort);
  }
}
