#!/usr/bin/env node
// `npm run example:web`: bundles the web example (build.mjs), serves it on
// http://127.0.0.1:5173 (WEB_PORT) and runs `npm start`'s API beside it on
// PORT (3000) with CORS_ORIGINS set to the page's origin, then prints the
// page's URL. SIGINT (Ctrl+C) or SIGTERM stops both: the API gracefully (it
// gets SIGTERM), then this process exits 0.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildExample, describeSizes } from './build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const host = '127.0.0.1';
const demo = { apiKey: 'pk_test_partner_app_0001', correlationId: 'm-alice', reservationToken: 'rt-alice-1', reservationAmount: 7500 };

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

/** The page's files, from memory; `config.json` once the API listens. Anything else is 404. */
function staticHandler(files, policy) {
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
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
  const web = createServer(staticHandler(files, policy));
  const origin = `http://${host}:${await listen(web, webPort)}`;

  const api = spawn('npm', ['start'], {
    cwd: root,
    env: { ...process.env, PORT: String(apiPort), CORS_ORIGINS: origin },
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
  connectSources = `'self' ${apiBaseUrl} ${unreachableBaseUrl}`;
  const config = { apiBaseUrl, unreachableBaseUrl, ...demo };
  files.set('/config.json', { contentType: 'application/json', body: Buffer.from(JSON.stringify(config)) });
  console.log(`Web example: ${origin}/  (API ${apiBaseUrl}, started with CORS_ORIGINS=${origin}; Ctrl+C stops both)`);
}

main().catch((error) => {
  console.error(`example:web: ${error.stack ?? error}`);
  process.exit(1);
});
