// Runs the Pact consumer tests (contracts/**/*.pact.test.ts) into a clean
// output directory, so that no interaction of an earlier run lingers in the
// pact (Pact merges into an existing file).
//
//   node scripts/pact-consumer.mjs           -> node_modules/.cache/loyalty-pact/pacts/ (then pact-compare.mjs)
//   node scripts/pact-consumer.mjs --update  -> contracts/pacts/ (npm run pact:update; commit the result)
//
// The test files write one pact together, so they run in band.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { committedPactDir, fail, rel, repoRoot, scratchPactDir } from './pact-lib.mjs';

const update = process.argv.includes('--update');
const outputDir = update ? committedPactDir : scratchPactDir;

mkdirSync(outputDir, { recursive: true });
for (const name of readdirSync(outputDir)) {
  if (name.endsWith('.json')) rmSync(path.join(outputDir, name));
}

const jest = createRequire(import.meta.url).resolve('jest/bin/jest');
const run = spawnSync(process.execPath, [jest, '--selectProjects', 'pact-consumer', '--runInBand'], {
  cwd: repoRoot,
  stdio: 'inherit',
  env: { ...process.env, PACT_OUTPUT_DIR: outputDir },
});
if (run.status !== 0) fail(`Pact consumer tests failed (exit ${run.status ?? run.signal}).`);

const written = readdirSync(outputDir).filter((name) => name.endsWith('.json'));
if (written.length === 0) fail(`The consumer tests wrote no pact into ${rel(outputDir)}.`);
console.log(`Pact consumer tests passed; wrote ${written.map((name) => rel(path.join(outputDir, name))).join(', ')}.`);
if (update) console.log('Commit contracts/pacts/ with the change that made it.');
