// The partner's own server, beside its page: what a partner builds so that
// its page never holds a key that can act for a member. It signs the member
// in (here, a demo: the page picks one of the demo members; a real backend
// starts a session only for the member its own login authenticated), then
// starts the member's loyalty session with the partner's secret key, through
// the SDK in Node, and gives the page the session token and nothing else.
// The page calls Operations A and B itself, with the publishable key.
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
 * own page only (its `Origin` is this server's, as a browser sends it on a
 * POST): `200 { correlationId, sessionToken, expiresAt, requestId }`, the
 * session the loyalty API started for that member. `requestId` is the one
 * the SDK sent the API, for support.
 */
export function signIn({ apiBaseUrl, secretKey }) {
  const loyalty = createLoyaltyClient({ baseUrl: apiBaseUrl, apiKey: secretKey, userAgent: 'web-example-backend/1.0.0' });
  return async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    // Another site's page could post here too (a form, a script): only this site's own page may sign in.
    if (req.headers.origin !== `http://${req.headers.host}`) return answer(res, 403, { error: "Sign in from this site's own page" });
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
