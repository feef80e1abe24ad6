import { createLoyaltyClient, type TraceHeaders, sessionAuth } from '@loyalty/sdk';
import { fakeFetch, json, networkError, recordingSleep, reservation, voucher } from './support/fake-fetch';

const baseUrl = 'https://loyalty.example.com';
const apiKey = 'demo_secret_partner_app_0001';
const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const list = { correlationId: 'm-alice', sessionToken: 'st' };

function client(tracePropagation: (() => TraceHeaders | undefined) | undefined, ...replies: Parameters<typeof fakeFetch>) {
  const fake = fakeFetch(...replies);
  const loyalty = createLoyaltyClient({
    baseUrl,
    apiKey,
    fetch: fake.fetch,
    retries: { random: () => 0, sleep: recordingSleep().sleep },
    ...(tracePropagation && { tracePropagation }),
  });
  return { ...fake, loyalty };
}

const traceHeaders = (request: Request | undefined) => ({ traceparent: request?.headers.get('traceparent'), tracestate: request?.headers.get('tracestate') });

describe('tracePropagation', () => {
  it('sends no trace headers without it', async () => {
    const { loyalty, requests } = client(undefined, json(200, [voucher]));
    await loyalty.listVoucherDefinitions(list);
    expect(traceHeaders(requests[0])).toEqual({ traceparent: null, tracestate: null });
  });

  it('sends the traceparent and tracestate it gives, asked afresh on every call', async () => {
    const current: TraceHeaders[] = [{ traceparent, tracestate: 'vendor=abc,other=1' }, { traceparent: traceparent.replace('b7ad', 'c8be') }];
    const { loyalty, requests } = client(() => current.shift(), json(200, [voucher]), json(200, reservation));
    await loyalty.listVoucherDefinitions(list);
    await loyalty.updateReservation({ ...list, reservationToken: 'rt-1', body: { reservationAmount: 1 } });
    expect(requests.map(traceHeaders)).toEqual([
      { traceparent, tracestate: 'vendor=abc,other=1' },
      { traceparent: traceparent.replace('b7ad', 'c8be'), tracestate: null },
    ]);
  });

  it('asks once per call: every retry of a call carries the same traceparent', async () => {
    const ask = jest.fn(() => ({ traceparent }));
    const { loyalty, requests } = client(ask, networkError(), json(200, reservation));
    await loyalty.updateReservation({ ...list, reservationToken: 'rt-1', body: { reservationAmount: 1 } });
    expect(ask).toHaveBeenCalledTimes(1);
    expect(requests.map((request) => request.headers.get('traceparent'))).toEqual([traceparent, traceparent]);
  });

  it.each([
    ['no current span', undefined],
    ['an empty carrier', {}],
    ['a malformed traceparent', { traceparent: 'not-a-traceparent', tracestate: 'vendor=1' }],
    ['upper-case hex', { traceparent: traceparent.toUpperCase() }],
    ['an all-zero trace id', { traceparent: `00-${'0'.repeat(32)}-b7ad6b7169203331-01` }],
    ['version ff', { traceparent: traceparent.replace(/^00/, 'ff') }],
    ['a tracestate alone', { tracestate: 'vendor=1' }],
  ])('sends nothing for %s', async (_case, headers: TraceHeaders | undefined) => {
    const { loyalty, requests } = client(() => headers, json(200, []));
    await loyalty.listVoucherDefinitions(list);
    expect(traceHeaders(requests[0])).toEqual({ traceparent: null, tracestate: null });
  });

  it('leaves out a tracestate that is too long or not a header value, keeping the traceparent', async () => {
    const { loyalty, requests } = client(
      () => ({ traceparent, tracestate: `v=${'a'.repeat(511)}` }),
      json(200, []),
    );
    await loyalty.listVoucherDefinitions(list);
    expect(traceHeaders(requests[0])).toEqual({ traceparent, tracestate: null });

    const second = client(() => ({ traceparent, tracestate: 'v=1\r\nX-Api-Key: stolen' }), json(200, []));
    await second.loyalty.listVoucherDefinitions(list);
    expect(traceHeaders(second.requests[0])).toEqual({ traceparent, tracestate: null });
  });

  it('never fails a call: a function that throws sends nothing', async () => {
    const { loyalty, requests } = client(() => {
      throw new Error('no tracer');
    }, json(200, []));
    const result = await loyalty.listVoucherDefinitions(list);
    expect(result.data).toEqual([]);
    expect(requests[0]?.headers.has('traceparent')).toBe(false);
  });

  it('applies to the raw client too, keeping a traceparent the caller set on the request', async () => {
    const { loyalty, requests } = client(() => ({ traceparent }), json(200, []), json(200, []));
    const path = '/client/users/{correlation_id}/voucher-definitions' as const;
    await loyalty.raw.GET(path, { params: { path: { correlation_id: 'm-alice' } }, middleware: [sessionAuth('st')] });
    const own = traceparent.replace('b7ad', 'aaaa');
    await loyalty.raw.GET(path, { params: { path: { correlation_id: 'm-alice' } }, headers: { traceparent: own }, middleware: [sessionAuth('st')] });
    expect(requests.map((request) => request.headers.get('traceparent'))).toEqual([traceparent, own]);
  });

  it('must be a function (checked when the client is made)', () => {
    expect(() => createLoyaltyClient({ baseUrl, apiKey, tracePropagation: { traceparent } as never })).toThrow(
      'createLoyaltyClient: tracePropagation must be a function returning { traceparent, tracestate }',
    );
  });
});
