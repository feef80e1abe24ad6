import { SpanStatusCode } from '@opentelemetry/api';
import type { RequestCounter } from '../rate-limit/counter';
import { MemoryStore } from '../store/memory/memory-store';
import { StoreUnavailableError, voucherDefinitionsVersionReader } from '../store/port';
import { memberRecord } from '../store/test-support/records';
import { rateLimitHitsAttribute, rateLimitSpanName, tracedRequestCounter } from './traced-request-counter';
import { tracedStore } from './traced-store';
import { useInMemoryTracing } from '../test-support/in-memory-tracing';

const { exporter, tracer } = useInMemoryTracing();
beforeEach(() => exporter.reset());

/** Runs `work` inside a request's span, as node:http's instrumentation would. */
function inRequest<T>(work: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan('request', async (span) => {
    try {
      return await work();
    } finally {
      span.end();
    }
  });
}

const spans = () => exporter.getFinishedSpans();
const requestSpan = () => spans().find((span) => span.name === 'request');

describe('tracedStore', () => {
  it('makes a span per call within a request, named after the method, a child of the request span', async () => {
    const store = tracedStore(new MemoryStore(), tracer);
    await inRequest(async () => {
      await store.findMember('m-nobody');
      await store.loadWalletSlice('w-1', { clientId: 'c', correlationId: 'm', reservationToken: 'rt' });
    });
    const request = requestSpan();
    const calls = spans().filter((span) => span !== request);
    expect(calls.map((span) => span.name)).toEqual(['findMember', 'loadWalletSlice']);
    for (const call of calls) {
      expect(call.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
      expect(call.status.code).toBe(SpanStatusCode.UNSET);
    }
  });

  it('makes no span for a call outside any request, and returns what the store returns', async () => {
    const store = tracedStore(new MemoryStore(), tracer);
    expect(await store.findMember('m-nobody')).toBeNull();
    expect(spans()).toEqual([]);
  });

  it("marks a failed call with the error's type only (no message, no stack) and rethrows the error itself", async () => {
    const failure = new StoreUnavailableError('connect ECONNREFUSED 10.0.0.7:27017');
    const failing = new MemoryStore();
    jest.spyOn(failing, 'findMember').mockRejectedValue(failure);
    const store = tracedStore(failing, tracer);
    await expect(inRequest(() => store.findMember('m-1'))).rejects.toBe(failure);
    const call = spans().find((span) => span.name === 'findMember');
    expect(call?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'StoreUnavailableError' });
    expect(call?.attributes).toEqual({ 'error.type': 'StoreUnavailableError' });
    expect(call?.events).toEqual([]);
  });

  it('forwards the voucher definitions version synchronously, so that what is cached behind it stays cached', () => {
    const memory = new MemoryStore();
    const read = voucherDefinitionsVersionReader(tracedStore(memory, tracer));
    expect(read?.()).toBe(memory.voucherDefinitionsVersion());
  });

  it('passes the store calls on with their arguments, bound to the store', async () => {
    const memory = new MemoryStore();
    const store = tracedStore(memory, tracer);
    await inRequest(() => store.upsertMembers([memberRecord('m-1')]));
    expect(await memory.findMember('m-1')).toMatchObject({ correlationId: 'm-1' });
  });
});

describe('tracedRequestCounter', () => {
  const asyncCounter: RequestCounter = { hit: () => Promise.resolve({ hits: 3, msBeforeReset: 1000 }) };

  it('makes a span around an asynchronous count within a request, with the count', async () => {
    const counter = tracedRequestCounter(asyncCounter, tracer);
    await expect(inRequest(async () => counter.hit('client-1'))).resolves.toEqual({ hits: 3, msBeforeReset: 1000 });
    const count = spans().find((span) => span.name === rateLimitSpanName);
    expect(count?.parentSpanContext?.spanId).toBe(requestSpan()?.spanContext().spanId);
    expect(count?.attributes).toEqual({ [rateLimitHitsAttribute]: 3 });
  });

  it('keeps a synchronous count synchronous', async () => {
    const counter = tracedRequestCounter({ hit: () => ({ hits: 1, msBeforeReset: 10 }) }, tracer);
    await inRequest(async () => expect(counter.hit('client-1')).toEqual({ hits: 1, msBeforeReset: 10 }));
    expect(spans().find((span) => span.name === rateLimitSpanName)?.attributes).toEqual({ [rateLimitHitsAttribute]: 1 });
  });

  it('marks a failed count and rethrows; counts outside a request make no span', async () => {
    const failure = new Error('count failed');
    const counter = tracedRequestCounter({ hit: () => Promise.reject(failure) }, tracer);
    await expect(inRequest(async () => counter.hit('client-1'))).rejects.toBe(failure);
    expect(spans().find((span) => span.name === rateLimitSpanName)?.status.code).toBe(SpanStatusCode.ERROR);

    exporter.reset();
    await tracedRequestCounter(asyncCounter, tracer).hit('client-1');
    expect(spans()).toEqual([]);
  });
});
