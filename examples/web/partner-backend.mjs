// The partner's own server, beside its page: what a partner builds so that
// its page never holds a key that can act for a member. It signs the member
// in, then starts the member's loyalty session with the partner's secret key,
// through the SDK in Node, and gives the page the session token and nothing
// else. The page calls Operations A and B itself, with the publishable key.
//
// A real sign-in must check, before it starts any session:
// - who the member is, by the partner's own login (a password, a passkey,
//   single sign-on): it starts a session only for the member that login
//   authenticated, never for an id the request names. This demo has no
//   login: the page picks one of two demo members, which is exactly what a
//   real backend must never allow;
// - that the request comes from the site's own page: its `Origin` is the
//   site's own, configured origin (never compared with the request's `Host`,
//   which the caller writes as it likes), and the partner's own session
//   cookie is `SameSite` or the form carries a CSRF token, so that another
//   site's page cannot sign a visitor in behind their back;
// - that it answers the session token only: the secret key never leaves
//   this server (not in the page, its bundle, its configuration or any
//   answer), and the API refuses it from a page anyway;
// - how often it may be asked: a rate limit per member account and per
//   client address, since each sign-in costs a Start Session on the
//   partner's secret key, whose rate limit all its servers share.
// This demo checks the origin and answers the token only; the rest is the
// partner's own site's.
import { createLoyaltyClient, isLoyaltyRequestError } from '@loyalty/sdk';

/** The members the demo sign-in offers (server/fixtures/demo.json), and the reservation the page lowers for each. */
export const demoMembers = [
  { correlationId: 'm-alice', name: 'Alice', reservationToken: 'rt-alice-1', reservationAmount: 7500 },
  { correlationId: 'm-hh-1', name: 'Hana (household)', reservationToken: 'rt-hh-1', reservationAmount: 9000 },
];

/** A sign-in is a member's pick: a few bytes. */
const maxBodyBytes = 1024;

function answer(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' }).end(JSON.stringify(body));
}

/** The request's JSON body, or null when it is larger than `maxBodyBytes` or not JSON. */
async function jsonBody(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > maxBodyBytes) return null;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return null;
  }
}

/**
 * `POST /sign-in` with `{ "member": "<correlation id>" }`, from the site's
 * own page only: its `Origin` (which a browser sends on every POST) must be
 * `origin`, where this server serves the page (`http://127.0.0.1:5173`;
 * serve.mjs knows it). `200 { correlationId, sessionToken, expiresAt,
 * requestId }`, the session the loyalty API started for that member;
 * `requestId` is the one the SDK sent the API, for support. Any other
 * origin, or none: `403`.
 */
export function signIn({ apiBaseUrl, secretKey, origin }) {
  if (typeof origin !== 'string' || !URL.canParse(origin) || new URL(origin).origin !== origin) throw new Error(`signIn: origin must be the page's exact origin, such as http://127.0.0.1:5173 (got ${JSON.stringify(origin)})`);
  const loyalty = createLoyaltyClient({ baseUrl: apiBaseUrl, apiKey: secretKey, userAgent: 'web-example-backend/1.0.0' });
  return async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    // Another site's page could post here too (a form, a script): only this
    // site's own page may sign in. Compared with the origin this server is
    // configured with, never with the request's Host: whoever sends the
    // request writes both headers, so a Host of theirs would match an Origin
    // of theirs.
    if (req.headers.origin !== origin) return answer(res, 403, { error: "Sign in from this site's own page" });
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return answer(res, 415, { error: 'Send JSON' });
    const body = await jsonBody(req);
    const member = demoMembers.find((candidate) => candidate.correlationId === body?.member);
    if (!member) return answer(res, 400, { error: 'Pick one of the demo members' });
    try {
      const started = await loyalty.startSession({ correlationId: member.correlationId, identifierType: 'CARD_NUMBER' });
      if (started.error) return answer(res, 502, { error: `The loyalty API answered ${started.error.errorCode}`, requestId: started.requestId });
      const { sessionToken, expiresAt } = started.data;
      return answer(res, 200, { correlationId: member.correlationId, sessionToken, expiresAt, requestId: started.requestId });
    } catch (error) {
      if (!isLoyaltyRequestError(error)) throw error;
      return answer(res, 502, { error: `The loyalty API did not answer (${error.reason})`, requestId: error.requestId });
    }
  };
}
