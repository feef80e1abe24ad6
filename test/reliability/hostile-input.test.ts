import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { Wallet } from '../../server/src/domain/model';
import { problemsOfAnswer } from '../support/answers';
import { initialBalances, keys, members, walletIdOfMember, type ReliabilityClient } from '../support/fixture';
import {
  anyBody,
  apiKeyArb,
  hostileStrings,
  malformedJson,
  memberArb,
  printable,
  reservationTokenArb,
  runs,
  segment,
  serialize,
  sessionArb,
  validBody,
  type SessionChoice,
} from '../support/generators';
import { send, UnsendableError, type RawRequest, type RawResponse } from '../support/http';
import { sessionOf, startSessionPool, type SessionPool } from '../support/sessions';
import { startWorld, type World } from '../support/world';

/*
 * Property-based tests of hostile input, over the real server (startServer)
 * on a store that checks every argument it is given. For every request:
 *
 * - the answer is a 2xx or a 4xx the spec documents, with the security
 *   headers, never a 5xx or a hang, and it leaks nothing internal;
 * - a rejected request writes nothing (the wallets of every fixture member
 *   are compared before and after, and the store counts writes);
 * - an accepted one leaves the points conserved and the audit trail whole;
 * - no value from the request reaches the store as anything but a string,
 *   and no fractional point is ever stored.
 *
 * Each run starts from the fixture state, so a failure replays on its own:
 * fast-check prints the seed and the shrunk request. Reproduce with
 * FC_SEED=<seed>; explore with FC_SEED=random FC_RUNS=10.
 */

jest.setTimeout(120_000);

let world: World;
let pool: SessionPool;
let url: string;
/** RELIABILITY_SURVEY=1: every kind of problem, counted, instead of the first failure. */
const survey = process.env.RELIABILITY_SURVEY ? new Map<string, { count: number; example: string }>() : null;

beforeAll(async () => {
  world = await startWorld({ instances: 1 });
  url = world.urls[0]!;
  pool = await startSessionPool(world.apis[0]!);
});
afterAll(async () => {
  if (survey) console.log([...survey.values()].map(({ count, example }) => `${count} x ${example}`).join('\n'));
  await world?.close();
});


/** Sends `req` from the fixture state and returns every broken promise. */
async function exchange(req: RawRequest, oracle: (res: RawResponse, before: Map<string, Wallet | null>) => string[] | Promise<string[]> = () => []): Promise<RawResponse> {
  await world.restore();
  const writes = world.spy.writes;
  const before = await world.wallets();
  let res: RawResponse;
  try {
    res = await send(url, req);
  } catch (error) {
    // A request Node itself refuses to write says nothing about the server.
    fc.pre(!(error instanceof UnsendableError));
    throw error;
  }
  const problems = problemsOfAnswer(req, res);
  if (res.status < 200 || res.status >= 300) {
    if (world.spy.writes !== writes) problems.push(`a rejected request (${res.status}) wrote to the store`);
    if (!isDeepStrictEqual(await world.wallets(), before)) problems.push(`a rejected request (${res.status}) changed a wallet`);
  } else {
    problems.push(...(await world.conservation()), ...(await world.audit()).problems);
  }
  problems.push(...(await oracle(res, before)), ...world.spy.violations.splice(0));
  if (problems.length > 0 && survey) {
    // RELIABILITY_SURVEY=1: list every kind of problem instead of stopping at the first.
    for (const problem of problems) {
      const kind = problem.replace(/^(\S+ )\S+/, '$1<path>').slice(0, 100);
      const seen = survey.get(kind);
      survey.set(kind, seen ? { ...seen, count: seen.count + 1 } : { count: 1, example: `${problem}\n    ${JSON.stringify({ ...req, body: req.body?.toString().slice(0, 300) })}` });
    }
    return res;
  }
  if (problems.length > 0) {
    throw new Error(`${problems.join('\n')}\nrequest: ${JSON.stringify({ ...req, body: req.body?.toString().slice(0, 500) })}`);
  }
  return res;
}

function bearer(choice: SessionChoice, client: ReliabilityClient | null, member: string): string | undefined {
  const own = client ?? 'partner';
  switch (choice.kind) {
    case 'own':
      return sessionOf(pool, own, member, choice.identifierType)?.sessionToken ?? 'st_no_such_session_for_this_member_0000';
    case 'otherMember':
      return choice.member === member ? undefined : sessionOf(pool, own, choice.member)?.sessionToken;
    case 'otherClient':
      return choice.client === own ? undefined : sessionOf(pool, choice.client, member)?.sessionToken ?? sessionOf(pool, choice.client, 'm-alice')?.sessionToken;
    case 'none':
      return undefined;
    case 'garbage':
      return choice.value;
  }
}

function availableOf(wallet: Wallet | null | undefined, member: string, now: Date): number {
  const balance = wallet?.balances.find((b) => b.correlationId === member)?.pointBalance ?? 0;
  const held = (wallet?.reservations ?? [])
    .filter((r) => r.expiresAt.getTime() > now.getTime())
    .flatMap((r) => r.contributions)
    .filter((c) => c.correlationId === member)
    .reduce((sum, c) => sum + c.points, 0);
  return balance - held;
}

describe('Operation B under generated requests (spec-derived bodies, mutated)', () => {
  it('answers every request as documented, and only an accepted one changes anything', async () => {
    const request = fc.record({
      key: apiKeyArb,
      member: memberArb,
      token: reservationTokenArb,
      session: sessionArb,
      body: anyBody,
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ key, member, token, session, body }) => {
        const text = serialize(body);
        const authorization = bearer(session, key.client, member);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (key.key !== undefined) headers['x-api-key'] = key.key;
        if (authorization !== undefined) headers.authorization = session.kind === 'garbage' ? authorization : `Bearer ${authorization}`;
        const req: RawRequest = { method: 'PUT', path: `/client/users/${segment(member)}/reservations/${segment(token)}`, headers, body: text };

        await exchange(req, async (res) => {
          const problems: string[] = [];
          const ownSession = session.kind === 'own' && key.client !== null && (members as readonly string[]).includes(member);
          // Authentication and authorisation: nobody acts for a member without that member's session of that client.
          if (key.client === null && res.status !== 401) problems.push(`an unknown or missing API key got ${res.status}`);
          // The body is read (413, 415, malformed JSON) before the session is checked: the spec's order.
          const beforeSession = [413, 415].includes(res.status) || (res.json as { errorMessage?: string } | undefined)?.errorMessage === 'Malformed JSON in request body';
          if (key.client !== null && !ownSession && res.status !== 401 && !beforeSession) problems.push(`a request without the member's own session got ${res.status}`);
          if (res.status === 200) {
            if (session.kind === 'own' && session.identifierType === 'PHONE_NUMBER') problems.push('a PHONE_NUMBER session changed a reservation');
            if (member === 'm-blocked') problems.push('a member that cannot redeem got a 200');
            problems.push(...(await responseMatchesStore(res, member, token)));
          }
          return problems;
        });
      }),
      runs(1500),
    );
  });

  it('valid bodies with the own session: 200 or a documented 400; whole points; conserved; audited', async () => {
    const request = fc.record({
      member: fc.constantFrom('m-alice', 'm-hh-1', 'm-hh-2', 'm-hh-3', 'm-solo', 'm-bob'),
      client: fc.constantFrom<ReliabilityClient>('partner', 'partner', 'capped', 'tiered'),
      identifierType: fc.constantFrom('CARD_NUMBER', 'CARD_NUMBER', 'EMAIL'),
      token: reservationTokenArb,
      body: validBody,
      // a second request on the same token: a lowering or a repeat after the first
      then: fc.option(validBody, { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ member, client, identifierType, token, body, then }) => {
        const headers = { 'content-type': 'application/json', 'x-api-key': keys[client], authorization: `Bearer ${sessionOf(pool, client, member, identifierType)!.sessionToken}` };
        const path = `/client/users/${member}/reservations/${segment(token)}`;
        const first = await exchange({ method: 'PUT', path, headers, body: serialize(body) }, async (res) =>
          res.status === 200 ? responseMatchesStore(res, member, token) : [],
        );
        if (then === undefined || first.status !== 200) return;
        // Second step from the state the first left (exchange would restore it): checked the same way.
        const writes = world.spy.writes;
        const before = await world.wallets();
        const req: RawRequest = { method: 'PUT', path, headers, body: serialize(then) };
        const res = await send(url, req);
        const problems = problemsOfAnswer(req, res);
        if (res.status !== 200) {
          if (world.spy.writes !== writes || !isDeepStrictEqual(await world.wallets(), before)) problems.push(`a rejected request (${res.status}) changed the store`);
        } else {
          problems.push(...(await world.conservation()), ...(await world.audit()).problems, ...(await responseMatchesStore(res, member, token)));
        }
        problems.push(...world.spy.violations.splice(0));
        if (problems.length > 0) throw new Error(problems.join('\n'));
      }),
      runs(700),
    );
  });

  /** A 200 tells the member what the store holds now. */
  async function responseMatchesStore(res: RawResponse, member: string, token: string): Promise<string[]> {
    const body = res.json as { reservationToken: string; availablePointBalance: number; pointBalance: number };
    const problems: string[] = [];
    if (body.reservationToken !== token) problems.push(`answered for token ${body.reservationToken}, asked ${token}`);
    if (body.pointBalance !== initialBalances[member as keyof typeof initialBalances]) problems.push(`pointBalance ${body.pointBalance}`);
    const available = availableOf(await world.base.loadWallet(walletIdOfMember(member)), member, world.clock());
    if (available !== body.availablePointBalance) problems.push(`availablePointBalance ${body.availablePointBalance}, store says ${available}`);
    return problems;
  }
});

describe('Operation B with bodies that are not (valid) JSON', () => {
  const path = '/client/users/m-alice/reservations/rt-alice-1';
  const headersFor = () => ({ 'x-api-key': keys.partner, authorization: `Bearer ${sessionOf(pool, 'partner', 'm-alice')!.sessionToken}` });

  it('malformed JSON: 400 in the documented shape, nothing changes', async () => {
    await fc.assert(
      fc.asyncProperty(malformedJson, async (text) => {
        const res = await exchange({ method: 'PUT', path, headers: { ...headersFor(), 'content-type': 'application/json' }, body: text });
        if (res.status === 200) {
          // Some "malformed" texts are valid JSON after all (a truncation may end on a whole value).
          JSON.parse(text);
        }
      }),
      runs(300),
    );
  });

  const contentTypes = fc.oneof(
    fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/json; charset=utf-8',
      'application/JSON',
      'application/json;',
      'application/merge-patch+json',
      'application/vnd.api+json',
      'application/jsonx',
      '*/*',
      'json',
      '',
      ';;;',
      'application/json, text/plain',
    ),
    printable(40),
  );
  const encodings = fc.constantFrom(undefined, 'identity', 'gzip', 'deflate', 'br', 'compress', 'x-custom', 'gzip, gzip');

  it('any content type and content encoding, any bytes: a documented answer, nothing changes unless accepted', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(contentTypes, { nil: undefined }),
        encodings,
        fc.oneof(validBody.map(serialize), malformedJson, fc.string({ maxLength: 64, unit: 'binary' })),
        async (contentType, encoding, text) => {
          const headers: Record<string, string> = headersFor();
          if (contentType !== undefined) headers['content-type'] = contentType;
          if (encoding !== undefined) headers['content-encoding'] = encoding;
          await exchange({ method: 'PUT', path, headers, body: text });
        },
      ),
      runs(300),
    );
  });
});

describe('Start Session and Operation A under hostile paths, headers and queries', () => {
  it('Start Session: documented answers; only a 201 stores a session', async () => {
    await fc.assert(
      fc.asyncProperty(
        apiKeyArb,
        memberArb,
        fc.oneof({ weight: 4, arbitrary: fc.constantFrom<string | undefined>('CARD_NUMBER', 'EMAIL', 'PHONE_NUMBER', 'MEMBER_ID') }, { weight: 1, arbitrary: fc.option(printable(30), { nil: undefined }) }),
        async (key, member, identifierType) => {
          const headers: Record<string, string> = {};
          if (key.key !== undefined) headers['x-api-key'] = key.key;
          if (identifierType !== undefined) headers['x-identifier-type'] = identifierType;
          const res = await exchange({ method: 'POST', path: `/client/users/${segment(member)}/sessions`, headers });
          if (key.client === null && res.status !== 401) throw new Error(`unknown key got ${res.status}`);
        },
      ),
      runs(300),
    );
  });

  const queries = fc.oneof(
    fc.constantFrom('', '?businessUnit=LCL', '?businessUnit=SDM', '?businessUnit=GAS', '?businessUnit=', '?businessUnit=LCL&businessUnit=SDM'),
    fc.constantFrom('?businessUnit[$ne]=x', '?businessUnit[]=LCL', '?__proto__[x]=1', '?constructor[prototype][x]=1', '?businessUnit=%00', '?businessUnit=%ZZ', '?&&&', '?businessUnit=' + 'A'.repeat(65)),
    hostileStrings.map((value) => `?businessUnit=${segment(value)}`),
    fc.tuple(printable(10, 1), printable(10)).map(([k, v]) => `?${segment(k)}=${segment(v)}`),
  );

  it('Operation A: documented answers, nothing written, no session of another member or client accepted', async () => {
    await fc.assert(
      fc.asyncProperty(apiKeyArb, memberArb, sessionArb, queries, async (key, member, session, query) => {
        const authorization = bearer(session, key.client, member);
        const headers: Record<string, string> = {};
        if (key.key !== undefined) headers['x-api-key'] = key.key;
        if (authorization !== undefined) headers.authorization = session.kind === 'garbage' ? authorization : `Bearer ${authorization}`;
        await exchange({ method: 'GET', path: `/client/users/${segment(member)}/voucher-definitions${query}`, headers }, (res) => {
          const own = session.kind === 'own' && key.client !== null && (members as readonly string[]).includes(member);
          return res.status === 200 && !own ? [`listed without the member's own session`] : [];
        });
      }),
      runs(300),
    );
  });
});

describe('any method on any path', () => {
  const methods = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'M-SEARCH');
  const paths = fc.oneof(
    fc.constantFrom(
      '/',
      '/client',
      '/client/',
      '/client/users',
      '/client/users/m-alice',
      '/client/users/m-alice/',
      '/client/users/m-alice/sessions/',
      '/client/users//sessions',
      '/client/users/m-alice/reservations',
      '/client/users/m-alice/reservations/',
      '/client/users/m-alice/reservations/rt-alice-1/extra',
      '/CLIENT/users/m-alice/sessions',
      '/client/users/m-alice/../m-hh-1/voucher-definitions',
      '/client/users/%2e%2e/voucher-definitions',
      '/client/users/m-alice%00/voucher-definitions',
      '/client/users/%E0%A4%A/voucher-definitions',
      '/client/users/m-alice/reservations/%',
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/docs/',
      '//client/users/m-alice/sessions',
      '/client/users/m-alice/voucher-definitions?',
      '/client/users/m-alice/voucher-definitions#x',
      '/client/users/' + 'm'.repeat(129) + '/sessions',
      '/client/users/' + 'm'.repeat(7000) + '/voucher-definitions',
      '/client/users/m-alice/reservations/' + 'r'.repeat(129),
      '*',
    ),
    fc.array(fc.oneof(hostileStrings.map(segment), printable(12, 1).map(segment)), { minLength: 1, maxLength: 6 }).map((parts) => `/${parts.join('/')}`),
    fc.tuple(fc.constantFrom('sessions', 'voucher-definitions', 'reservations/rt-alice-1'), hostileStrings).map(([tail, member]) => `/client/users/${segment(member)}/${tail}`),
  );

  it('documented answers with the security headers; nothing written unless accepted', async () => {
    await fc.assert(
      fc.asyncProperty(methods, paths, apiKeyArb, fc.boolean(), async (method, path, key, withSession) => {
        const headers: Record<string, string> = {};
        if (key.key !== undefined) headers['x-api-key'] = key.key;
        if (withSession) headers.authorization = `Bearer ${sessionOf(pool, key.client ?? 'partner', 'm-alice')!.sessionToken}`;
        const withBody = ['POST', 'PUT', 'PATCH'].includes(method);
        await exchange({
          method,
          path,
          headers: withBody ? { ...headers, 'content-type': 'application/json' } : headers,
          ...(withBody ? { body: '{"reservationAmount":1}' } : {}),
        });
      }),
      runs(300),
    );
  });
});
