// Paths and helpers shared by the scripts/pact-*.mjs scripts. Keep the names
// in step with contracts/shared/contract.ts, which the tests use.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const consumerName = 'loyalty-sdk';
export const providerName = 'loyalty-api';
export const pactFileName = `${consumerName}-${providerName}.json`;

/** The committed pacts: what the provider verifies and what a broker gets. */
export const committedPactDir = path.join(repoRoot, 'contracts', 'pacts');
export const committedPact = path.join(committedPactDir, pactFileName);

/** Where a fresh consumer run writes, to be compared with the committed pact (node_modules/ is ignored by git). */
export const scratchDir = path.join(repoRoot, 'node_modules', '.cache', 'loyalty-pact');
export const scratchPactDir = path.join(scratchDir, 'pacts');

export const specPath = path.join(repoRoot, 'openapi', 'openapi.yaml');

export function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** A path relative to the repository, for messages. */
export function rel(file) {
  return path.relative(repoRoot, file) || '.';
}

export function fail(message) {
  console.error(`\n${message}\n`);
  process.exit(1);
}
