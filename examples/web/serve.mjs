#!/usr/bin/env node
// `npm run example:web`: bundles the web example (build.mjs), serves it on
// http://127.0.0.1:5173 (WEB_PORT) with the partner's backend beside it
// (partner-backend.mjs: the demo sign-in, which starts the member's session
// with the secret key), runs `npm start`'s API on PORT (3000) with the demo
// data, whose publishable key names the page's origin (so CORS lets the page
// call it, with CORS_ORIGINS unset; its metrics on METRICS_PORT, 9464 unless
// set, as its log says), then prints the page's URL. SIGINT
// (Ctrl+C) or SIGTERM stops both: the API gracefully (it gets SIGTERM), then
// this process exits 0.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildExample, describeSizes } from './build.mjs';
import { demoFixtureFor, demoKeys } from './demo-data.mjs';
import { demoMembers, signIn } from './partner-backend.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const host = '127.0.0.1';

function portFrom(name, fallback) {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) {
    console.error(`example:web: ${name} must be a port number from 0 to 65535 (got ${JSON.stringify(raw)})`);
    process.exit(1);
  }
  return Number(raw);
}

function listen(server, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.address().port));
  });
}

/** A port nothing listens on (taken, then given back), for the page's "API unreachable" button. */
async function closedPort() {
  const probe = createServer();
  const port = await listen(probe, 0);
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The page's files, from memory; `config.json` once the API listens; `/sign-in`, the partner's backend. Anything else is 404. */
function siteHandler(files, policy, backend) {
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    if (path === '/sign-in') {
      if (!backend.signIn) res.writeHead(503, { 'Retry-After': '1' }).end();
      else
        backend.signIn(req, res).catch((error) => {
          console.error(`example:web: sign-in failed: ${error.message}`);
          if (!res.headersSent) res.writeHead(500).end();
        });
      return;
    }
    const file = files.get(path === '/' ? '/index.html' : path);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    res.writeHead(200, {
      'Content-Type': file.contentType,
      'Content-Length': file.body.byteLength,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': policy(),
    });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  };
}

/** Resolves with the API's port once `npm start` logs that it listens; echoes its output. */
function apiPortFrom(child) {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      process.stdout.write(`${line}\n`);
      try {
        const { url } = JSON.parse(line);
        if (typeof url === 'string' && line.includes('Listening on')) resolve(Number(new URL(url).port));
      } catch {
        // npm's own lines, not the server's JSON log
      }
    });
    child.once('exit', (code, signal) => reject(new Error(`the API (npm start) exited with ${signal ?? `code ${code}`} before listening`)));
  });
}

async function main() {
  const webPort = portFrom('WEB_PORT', 5173);
  const apiPort = portFrom('PORT', 3000);
  const built = await buildExample(root);
  console.log(describeSizes(built));

  const files = new Map(Object.entries(built.files));
  let connectSources = "'self'";
  const policy = () => `default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src https: data:; connect-src ${connectSources}; base-uri 'none'; frame-ancestors 'none'`;
  const backend = { signIn: null };
  const web = createServer(siteHandler(files, policy, backend));
  const origin = `http://${host}:${await listen(web, webPort)}`;

  // CORS follows the publishable keys: none is listed by hand.
  const { CORS_ORIGINS: _listed, ...environment } = process.env;
  const api = spawn('npm', ['start'], {
    cwd: root,
    env: { ...environment, PORT: String(apiPort), SEED_FILE: demoFixtureFor(root, origin) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stopping = false;
  const stop = async (exitCode) => {
    if (stopping) return;
    stopping = true;
    web.close();
    web.closeAllConnections();
    let apiCode = api.exitCode;
    if (api.exitCode === null && api.signalCode === null) {
      const exited = new Promise((resolve) => api.once('exit', resolve));
      api.kill('SIGTERM');
      apiCode = await exited;
    }
    // A stop asked for ends 0 when the API stopped cleanly too.
    process.exit(exitCode || (apiCode === 0 ? 0 : 1));
  };
  // A terminal's Ctrl+C reaches the API too (same process group); the API takes a second signal within a second as the same one.
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  let apiListensOn;
  try {
    apiListensOn = await apiPortFrom(api);
  } catch (error) {
    console.error(`example:web: ${error.message}`);
    await stop(1);
    return;
  }
  api.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`example:web: the API (npm start) exited with ${signal ?? `code ${code}`}; stopping the page's server`);
    void stop(1);
  });

  const apiBaseUrl = `http://${host}:${apiListensOn}`;
  const unreachableBaseUrl = `http://${host}:${await closedPort()}`;
  const keys = demoKeys(root);
  // The secret key stays here, in the partner's backend; the page gets the publishable key.
  // It signs in only the page it serves: the origin printed below, never another name for this server (localhost).
  backend.signIn = signIn({ apiBaseUrl, secretKey: keys.secret, origin });
  connectSources = `'self' ${apiBaseUrl} ${unreachableBaseUrl}`;
  const config = { apiBaseUrl, unreachableBaseUrl, publishableKey: keys.publishable, members: demoMembers };
  files.set('/config.json', { contentType: 'application/json', body: Buffer.from(JSON.stringify(config)) });
  console.log(`Web example: ${origin}/  (API ${apiBaseUrl}, its publishable key for ${origin}; Ctrl+C stops both)`);
}

main().catch((error) => {
  console.error(`example:web: ${error.stack ?? error}`);
  process.exit(1);
});
