/**
 * `HEAD` on Operation A's path, as a partner app sends it through the SDK's
 * raw client: each status the spec documents for it, with the headers that
 * matter and no body.
 */
import { sessionAuth } from '@loyalty/sdk';
import { apiKeys, clientIds, invalidSessionToken, placeholderSessionToken, states } from '../shared/contract';
import {
  alice,
  aliceExists,
  createPact,
  interaction,
  jsonContentType,
  memberHeaders,
  oversizedHeader,
  regex,
  requestIdPattern,
  sdk,
  settled,
  state,
  type StateSpec,
} from './support';

const pact = createPact();
const path = `/client/users/${alice}/voucher-definitions`;

interface HeadCase {
  status: number;
  name: string;
  given: StateSpec[];
  requestId: string;
  query?: Record<string, string>;
  token?: string;
  apiKey?: string;
  extraHeaders?: Record<string, string>;
  /** Besides Content-Type (and X-Request-Id, on every answer but 431). */
  headers?: Record<string, ReturnType<typeof regex>>;
}

const retryAfter = { 'Retry-After': regex('^\\d+$', '1') };

const cases: HeadCase[] = [
  { status: 200, name: 'the default business unit', given: [aliceExists], requestId: 'contract-head-vouchers-200' },
  {
    status: 400,
    name: 'a business unit the client has not enabled',
    given: [aliceExists, state(states.clientBusinessUnits, { enabledBusinessUnits: ['LCL', 'SDM', 'GAS'], defaultBusinessUnit: 'LCL' })],
    requestId: 'contract-head-vouchers-400',
    query: { businessUnit: 'XYZ' },
  },
  { status: 401, name: 'an invalid session token', given: [aliceExists], requestId: 'contract-head-vouchers-401', token: invalidSessionToken },
  // A publishable key from no page (no Origin): the key's use is refused.
  { status: 403, name: 'the publishable key without Origin', given: [aliceExists], requestId: 'contract-head-vouchers-403', apiKey: apiKeys.partnerPage },
  {
    status: 429,
    name: 'a client over its rate limit',
    given: [aliceExists, state(states.rateLimitUsedUp, { clientId: clientIds.throttled })],
    requestId: 'contract-head-vouchers-429',
    apiKey: apiKeys.throttled,
    headers: retryAfter,
  },
  { status: 431, name: 'headers over 16 KiB', given: [aliceExists], requestId: 'contract-head-vouchers-431', extraHeaders: oversizedHeader },
  { status: 500, name: 'the store failing', given: [aliceExists, state(states.storeFails, {})], requestId: 'contract-head-vouchers-500' },
  {
    status: 503,
    name: 'the store unavailable',
    given: [aliceExists, state(states.storeUnavailable, {})],
    requestId: 'contract-head-vouchers-503',
    headers: retryAfter,
  },
];

describe('HEAD on the voucher definitions: what GET answers, without the body', () => {
  it.each(cases.map((c) => [`${c.status} (${c.name})`, c] as const))('%s', (_title, c) => {
    const echoed: Record<string, ReturnType<typeof regex>> = c.status === 431 ? {} : { 'X-Request-Id': regex(requestIdPattern, c.requestId) };
    return interaction(pact, `a HEAD request for the voucher definitions with ${c.name}`, ...c.given)
      .withRequest('HEAD', path, (req) => {
        req.headers({ ...memberHeaders(c.requestId, c.token, c.apiKey), ...c.extraHeaders });
        if (c.query) req.query(c.query);
      })
      .willRespondWith(c.status, (res) => res.headers({ ...jsonContentType, ...echoed, ...c.headers }))
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url, c.apiKey).raw.HEAD('/client/users/{correlation_id}/voucher-definitions', {
          params: { path: { correlation_id: alice }, ...(c.query ? { query: c.query } : {}) },
          headers: { 'X-Request-Id': c.requestId, ...c.extraHeaders },
          middleware: [sessionAuth(c.token ?? placeholderSessionToken)],
        });
        expect(result.response.status).toBe(c.status);
        expect(await result.response.text()).toBe('');
      }));
  });
});
