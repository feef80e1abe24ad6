// The files Operation B passes through on MongoDB: run by scripts/house-shape.mjs
// as `node scripts/operation-b-path.cjs` with MONGODB_URI set, on the built
// server (server/dist, one .js per .ts of server/src). Prints one JSON line:
// { files: [{ path, functions }] }, each path as in server/src, with the
// names of its functions that ran.
//
// main's own start-up (startServer with buildDeps, production defaults:
// metrics on, on a free port of their own, unless METRICS says otherwise,
// the rate limit at its default, tracing off) on a database of its own,
// seeded with the demo fixture, in this process. After a warm-up
// (the session kept, the rate limit's block held, the outbox delivered),
// V8's precise coverage counts the functions called while the server
// serves one Operation B request, from its arrival to its answer and its
// outbox delivered after it. A file is on the path when one of its
// functions ran then; main.ts, where the walk starts, is added. Of three
// requests measured one by one, the one that passed the fewest files
// counts: the steady state (another may meet the rate limit's claim of a
// new block, or its key's new window). The database is dropped at the end.
'use strict';
const { Session } = require('node:inspector/promises');
const { pathToFileURL } = require('node:url');
const { MongoClient } = require('mongodb');
const { pino } = require('pino');

const distUrl = pathToFileURL(`${__dirname}/../server/dist/`).href;
const { startServer } = require('../server/dist/main');
const { buildDeps } = require('../server/dist/composition');
const { loadConfig } = require('../server/dist/config');
const { demoFixturePath } = require('../server/dist/features/load/read-fixture');

const key = 'demo_secret_partner_app_0001';
const warmUpRequests = 30;
const measuredRequests = 3;
/** Long enough for the outbox's batch (100 ms) to go out after the answer. */
const afterAnswerMs = 500;

/** The build holds production code only (tsconfig.build.json leaves tests and test support out). */
const sourceOf = (path) => (path.endsWith('.js') ? `${path.slice(0, -'.js'.length)}.ts` : null);

/** The files of the build one of whose functions ran, with those functions' names; main.ts first. */
function filesThatRan(coverage) {
  const files = [{ path: 'main.ts', functions: [] }];
  for (const script of coverage) {
    if (!script.url.startsWith(distUrl)) continue;
    const path = sourceOf(decodeURIComponent(script.url.slice(distUrl.length)));
    const ran = script.functions.filter((f) => f.ranges.some((r) => r.count > 0)).map((f) => f.functionName || '(anonymous)');
    if (path && ran.length > 0 && path !== 'main.ts') files.push({ path, functions: [...new Set(ran)].sort() });
  }
  return [files[0], ...files.slice(1).sort((a, b) => a.path.localeCompare(b.path))];
}

async function main() {
  const uri = process.env.MONGODB_URI;
  if (!uri) throw new Error('MONGODB_URI is not set');
  const dbName = `operation_b_path_${process.pid}`;
  // METRICS=off measures the path without the metrics' hooks (production's default is on).
  const metrics = process.env.METRICS ? { METRICS: process.env.METRICS } : {};
  const config = loadConfig({ PORT: '0', METRICS_PORT: '0', MONGODB_URI: uri, MONGODB_DB: dbName, SEED_FILE: demoFixturePath, LOG_LEVEL: 'silent', ...metrics });
  const running = await startServer(config, pino({ level: 'silent' }), buildDeps);
  const inspector = new Session();
  inspector.connect();
  try {
    const base = running.url.replace(/^http:\/\/(\[::\]|0\.0\.0\.0)/, 'http://127.0.0.1');
    const started = await fetch(`${base}/client/users/m-alice/sessions`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'x-identifier-type': 'CARD_NUMBER' },
    });
    const { sessionToken } = await started.json();
    let amount = 9000;
    const lower = async () => {
      const answer = await fetch(`${base}/client/users/m-alice/reservations/rt-alice-1`, {
        method: 'PUT',
        headers: { 'x-api-key': key, authorization: `Bearer ${sessionToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reservationAmount: amount-- }),
      });
      await answer.arrayBuffer();
      if (answer.status !== 200) throw new Error(`Operation B answered ${answer.status}`);
    };
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    for (let i = 0; i < warmUpRequests; i++) await lower();
    await new Promise((resolve) => setTimeout(resolve, afterAnswerMs));
    let fewest = null;
    for (let i = 0; i < measuredRequests; i++) {
      // Taking the coverage resets the counts: the next take holds one request only.
      await inspector.post('Profiler.takePreciseCoverage');
      await lower();
      await new Promise((resolve) => setTimeout(resolve, afterAnswerMs));
      const files = filesThatRan((await inspector.post('Profiler.takePreciseCoverage')).result);
      if (!fewest || files.length < fewest.length) fewest = files;
    }
    process.stdout.write(`${JSON.stringify({ files: fewest })}\n`);
  } finally {
    inspector.disconnect();
    await running.stop();
    const client = await new MongoClient(uri).connect();
    await client.db(dbName).dropDatabase();
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
