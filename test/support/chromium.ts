import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Where the browser tests write what they saw (screenshots); git-ignored. */
export const outputDir = path.join(__dirname, '..', 'browser', 'output');

/**
 * Headless, and quiet on the network: without the background-networking,
 * component-update and sync switches Chromium calls home at start-up, and on
 * a closed network its connections are refused. QUIC is off so that every
 * request is plain HTTP the test servers answer.
 */
const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Debian's chromium, found on the PATH; no browser is ever downloaded. */
export function findChromium(): string {
  let found = '';
  try {
    found = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  } catch {
    // reported below
  }
  if (!found) throw new Error('Chromium not found on the PATH: install it with `apt-get install -y chromium` (Debian, as root), then run npm run test:browser again');
  return found;
}

/**
 * Debian's Chromium, driven by playwright-core. Playwright gives each launch
 * a fresh profile (`--user-data-dir` in a new temporary folder) and removes
 * it on close. Pages in a context of `newContext({ locale })` see that
 * locale as `navigator.language(s)`.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(), headless: true, args: chromiumFlags });
}
