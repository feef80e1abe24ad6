#!/usr/bin/env node
// Smoke test of a running server seeded with the demo data
// (server/fixtures/demo.json): health, readiness, a session, Operation A and
// Operation B, each answering as documented, and no /metrics beside the API
// (it has a port of its own). For a deployed image (the GitHub workflow's
// docker job) or `npm start`:
//
//   node scripts/smoke.mjs http://localhost:3000
//
// Waits up to SMOKE_WAIT_MS (default 60000) for /healthz first, so it can
// follow `docker run -d` at once. Exits 0 when every check passed, 1 at the
// first that did not, saying what came back.

const baseUrl = (process.argv[2] ?? 'http://localhost:3000').replace(/\/$/, '');
const apiKey = process.env.SMOKE_API_KEY ?? 'demo_secret_partner_app_0001';
const waitMs = Number(process.env.SMOKE_WAIT_MS ?? 60_000);

function fail(message) {
  console.error(`smoke: FAILED ${message}`);
  process.exit(1);
}

async function call(method, path, headers = {}, body) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

async function check(name, run, accept) {
  let answer;
  try {
    answer = await run();
  } catch (error) {
    fail(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const problem = accept(answer);
  if (problem) fail(`${name}: ${problem} (HTTP ${answer.status}: ${answer.text.slice(0, 300)})`);
  console.log(`smoke: ok ${name}`);
  return answer.json;
}

async function waitForHealth() {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      if ((await call('GET', '/healthz')).status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) fail(`GET /healthz: no answer within ${waitMs} ms from ${baseUrl}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const status = (expected) => (answer) => (answer.status === expected ? null : `expected HTTP ${expected}`);

await waitForHealth();
await check('GET /readyz', () => call('GET', '/readyz'), status(200));
const session = await check(
  'POST /client/users/m-alice/sessions',
  () => call('POST', '/client/users/m-alice/sessions', { 'x-api-key': apiKey, 'x-identifier-type': 'CARD_NUMBER' }),
  (answer) => status(201)(answer) ?? (typeof answer.json?.sessionToken === 'string' ? null : 'no sessionToken'),
);
const member = { 'x-api-key': apiKey, authorization: `Bearer ${session.sessionToken}` };
await check(
  'GET /client/users/m-alice/voucher-definitions',
  () => call('GET', '/client/users/m-alice/voucher-definitions', member),
  (answer) => status(200)(answer) ?? (Array.isArray(answer.json) && answer.json.length > 0 ? null : 'expected a non-empty list'),
);
await check(
  'PUT /client/users/m-alice/reservations/rt-alice-1',
  () => call('PUT', '/client/users/m-alice/reservations/rt-alice-1', member, { reservationAmount: 7500 }),
  (answer) => status(200)(answer) ?? (answer.json?.reservationToken === 'rt-alice-1' ? null : 'expected reservation rt-alice-1'),
);
await check(
  'GET an unknown path: 404 in the documented error shape',
  () => call('GET', '/client/users/m-alice/no-such-thing', member),
  (answer) => status(404)(answer) ?? (answer.json?.errorCode === 'NOT_FOUND' ? null : 'expected errorCode NOT_FOUND'),
);
await check(
  "GET /metrics on the API's port: 404 (the metrics have a port of their own)",
  () => call('GET', '/metrics'),
  (answer) => status(404)(answer) ?? (answer.json?.errorCode === 'NOT_FOUND' ? null : 'expected errorCode NOT_FOUND'),
);
console.log(`smoke: every check passed against ${baseUrl}`);
