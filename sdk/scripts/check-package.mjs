#!/usr/bin/env node
// Checks the package as a partner gets it: builds it, packs it, checks the
// tarball's contents, installs it into a scratch app, type-checks the
// README's example there as ESM and as CommonJS under several
// moduleResolution settings, and runs both builds against a small local
// stand-in of the API (the real server is not needed).
//
// Usage: npm run check:package -w @loyalty/sdk
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdk = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(sdk, '..');
const bin = (name) => join(repo, 'node_modules', '.bin', name);
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
const scratch = mkdtempSync(join(tmpdir(), 'loyalty-sdk-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const fail = (message) => {
  console.error(`check-package: ${message}`);
  process.exit(1);
};

// 1. Build and pack (the build is run here, so prepack's output cannot mix with --json).
run(bin('tsup'), [], sdk);
const [packed] = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], sdk));
const files = packed.files.map((f) => f.path).sort();
const expected = ['README.md', 'dist/index.d.mts', 'dist/index.d.ts', 'dist/index.js', 'dist/index.mjs', 'package.json'];
if (JSON.stringify(files) !== JSON.stringify(expected)) fail(`tarball holds ${files.join(', ')}; expected ${expected.join(', ')}`);
console.log(`packed ${packed.filename}: ${files.join(', ')} (${packed.size} bytes)`);

// 2. Install it into a scratch app, with openapi-fetch from this repo.
const app = join(scratch, 'app');
const modules = join(app, 'node_modules');
mkdirSync(join(modules, '@loyalty', 'sdk'), { recursive: true });
run('tar', ['-xzf', join(scratch, packed.filename), '-C', join(modules, '@loyalty', 'sdk'), '--strip-components=1'], scratch);
for (const dep of ['openapi-fetch', 'openapi-typescript-helpers']) symlinkSync(join(repo, 'node_modules', dep), join(modules, dep), 'dir');

// 3. The README's example, as an ES module and as a CommonJS module.
const example = readFileSync(join(sdk, 'test', 'readme-example.ts'), 'utf8');
mkdirSync(join(app, 'src'));
writeFileSync(join(app, 'src', 'app.mts'), example);
writeFileSync(join(app, 'src', 'app.cts'), example);
writeFileSync(join(app, 'src', 'bundled.ts'), example);

const typecheck = (name, options, include) => {
  const config = {
    compilerOptions: {
      strict: true,
      target: 'ES2022',
      lib: ['ES2022', 'DOM'],
      types: ['node'],
      typeRoots: [join(repo, 'node_modules', '@types')],
      skipLibCheck: false,
      outDir: 'out',
      ...options,
    },
    include,
  };
  writeFileSync(join(app, `tsconfig.${name}.json`), JSON.stringify(config, null, 2));
  const result = spawnSync(bin('tsc'), ['-p', `tsconfig.${name}.json`, ...(name === 'nodenext' ? [] : ['--noEmit'])], {
    cwd: app,
    encoding: 'utf8',
  });
  if (result.status !== 0) fail(`type-check (${name}) failed:\n${result.stdout}${result.stderr}`);
  console.log(`type-check ${name}: ok`);
};
// skipLibCheck is off: the published declarations must compile too.
typecheck('nodenext', { module: 'NodeNext', moduleResolution: 'NodeNext' }, ['src/app.mts', 'src/app.cts']);
typecheck('bundler', { module: 'ESNext', moduleResolution: 'Bundler' }, ['src/bundled.ts']);
typecheck('node10', { module: 'CommonJS', moduleResolution: 'Node10', ignoreDeprecations: '5.0' }, ['src/bundled.ts']);

// 4. Run both builds against a stand-in of the API.
const session = { sessionToken: 'st_9kq3ZbJ0m4W2yQ8vT1xH5cN7rL6pD0sA', sessionId: '3f6c1c9e-8f0a-4b7e-9a52-5d1e2c7b8a90', identifierType: 'CARD_NUMBER', expiresAt: '2026-11-21T21:00:00.000Z' };
const voucher = { voucherDefinitionId: 'vd-0001', businessUnit: 'LCL', definitionName: '$5 off your order', rewardType: 'DOLLAR_OFF', rewardValue: 5, rewardMetadata: { amount: 5, unit: 'FLAT' }, scope: 'CART', expiryRule: { type: 'ROLLING', rollingDays: 30 }, creative: { 'en-CA': { shortDescription1: '$5 off' } }, pointValue: 5000, redeemableValue: 5000 };
const reservation = { reservationToken: 'rt-alice-1', reservationDuration: 900, availablePointBalance: 42500, pointBalance: 50000 };
let puts = 0;
const seen = [];
const server = createServer((req, res) => {
  seen.push(`${req.method} ${req.url} ${req.headers['x-api-key']} ${req.headers['user-agent']}`);
  const send = (status, body, headers = {}) => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'X-Request-Id': String(req.headers['x-request-id']), ...headers });
    res.end(JSON.stringify(body));
  };
  if (req.headers['x-api-key'] !== 'pk_check') return send(401, { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Invalid or expired session' });
  if (req.method === 'POST' && req.url === '/client/users/m-alice/sessions') return send(201, session);
  if (req.headers.authorization !== `Bearer ${session.sessionToken}`) return send(401, { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Invalid or expired session' });
  if (req.method === 'GET' && req.url === '/client/users/m-alice/voucher-definitions') return send(200, [voucher]);
  if (req.method === 'PUT' && req.url === '/client/users/m-alice/reservations/rt-alice-1') {
    // Every other PUT first meets a 503 with Retry-After: 0, to exercise a real retry.
    if (puts++ % 2 === 0) return send(503, { statusCode: 503, errorCode: 'SERVICE_UNAVAILABLE', errorMessage: 'Service unavailable' }, { 'Retry-After': '0' });
    return send(200, reservation);
  }
  return send(404, { statusCode: 404, errorCode: 'NOT_FOUND', errorMessage: 'Not found' });
});
await new Promise((ready) => server.listen(0, '127.0.0.1', ready));
const baseUrl = `http://127.0.0.1:${server.address().port}`;

const expectedOutput = 'vd-0001: $5 off (5000 points)\nReservation rt-alice-1 holds for 900 s; 42500 points available\n';
// Asynchronous on purpose: a synchronous spawn would block this process's
// event loop, and with it the stand-in server the app talks to.
const runApp = (script) =>
  new Promise((done) => {
    const env = { ...process.env, LOYALTY_API_KEY: 'pk_check', LOYALTY_BASE_URL: baseUrl };
    execFile(process.execPath, [script], { cwd: app, env }, (error, stdout, stderr) => done({ error, stdout, stderr }));
  });
try {
  for (const script of ['out/app.mjs', 'out/app.cjs']) {
    const { error, stdout, stderr } = await runApp(script);
    if (error || stdout !== expectedOutput) fail(`${script} printed:\n${stdout}${stderr}`);
    console.log(`run ${script}: ok`);
  }
  if (puts !== 4) fail(`expected 2 PUTs per run (one retry), saw ${puts} in total`);
  if (!seen.every((line) => line.includes('coffee-kiosk/1.0.0 loyalty-sdk-js/'))) fail(`User-Agent missing:\n${seen.join('\n')}`);
  console.log('check-package: ok');
} finally {
  server.close();
}
