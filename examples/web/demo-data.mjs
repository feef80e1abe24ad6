// The demo data the example's API serves (server/fixtures/demo.json), and
// the demo client's two keys in it: the secret key, which only the partner's
// server holds (partner-backend.mjs), and the publishable key its page gets.
// Read on the server side only: nothing here is ever sent to the page.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

/** The client application of the demo, as demo.json names it. */
export const demoClientId = 'partner-app';

function demoData(root) {
  const path = join(root, 'server/fixtures/demo.json');
  return { path, data: JSON.parse(readFileSync(path, 'utf8')) };
}

function demoClient(data) {
  const client = data.clients.find((candidate) => candidate.clientId === demoClientId);
  if (!client?.apiKey || client.publishableKeys?.length !== 1) throw new Error(`demo.json: ${demoClientId} needs one secret and one publishable key`);
  return client;
}

/** The demo client's secret key (for the partner's server) and publishable key (for its page). */
export function demoKeys(root) {
  const client = demoClient(demoData(root).data);
  return { secret: client.apiKey, publishable: client.publishableKeys[0].apiKey };
}

/**
 * The fixture for the API when its page is on `pageOrigin`: demo.json itself
 * when its publishable key names that origin (the default port), else a copy
 * in a temporary folder whose publishable key names that origin instead, so
 * that CORS and the key follow the page wherever it is served.
 */
export function demoFixtureFor(root, pageOrigin) {
  const { path, data } = demoData(root);
  const key = demoClient(data).publishableKeys[0];
  if (key.origins.includes(pageOrigin)) return path;
  key.origins = [pageOrigin];
  const copy = join(mkdtempSync(join(os.tmpdir(), 'web-example-')), 'demo.json');
  writeFileSync(copy, JSON.stringify(data, null, 2));
  return copy;
}
