// Runs the Pact consumer tests (contracts/**/*.pact.test.ts) into a clean
// output directory, so that no interaction of an earlier run lingers in the
// pact (Pact merges into an existing file).
//
//   node scripts/pact-consumer.mjs           -> node_modules/.cache/loyalty-pact/pacts/ (then pact-compare.mjs)
//   node scripts/pact-consumer.mjs --update  -> contracts/pacts/ (npm run pact:update; commit the result)
//
// The test files write one pact together, so they run in band.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
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

/**
 * Pact's native core sets a process-wide log subscriber when a test file first
 * uses it, and prints this line on stderr each time a later file of the same
 * process does (pact-foundation/pact-js#1438): nothing failed, the subscriber
 * is there. Running each file in a process of its own would avoid it at about
 * twice the time, so the line alone is left out; everything else passes through.
 */
const pactCoreNotice = 'Failed to initialise global tracing subscriber - a global default trace dispatcher has already been set\n';

/**
 * Copies `from` to `to` as it comes, less each whole line equal to `line`. The
 * core writes that line in pieces, so a piece that may begin it waits for the
 * rest; any other text passes at once (jest's progress included).
 */
function passOnWithout(from, line, to) {
  let held = '';
  from.setEncoding('utf8');
  from.on('data', (text) => {
    const lines = `${held}${text}`.split(/(?<=\n)/);
    const last = lines.at(-1) ?? '';
    held = !last.endsWith('\n') && line.startsWith(last) ? (lines.pop() ?? '') : '';
    to.write(lines.filter((each) => each !== line).join(''));
  });
  from.on('end', () => to.write(held));
}

const jest = createRequire(import.meta.url).resolve('jest/bin/jest');
const run = spawn(process.execPath, [jest, '--selectProjects', 'pact-consumer', '--runInBand'], {
  cwd: repoRoot,
  stdio: ['inherit', 'inherit', 'pipe'],
  env: { ...process.env, PACT_OUTPUT_DIR: outputDir },
});
passOnWithout(run.stderr, pactCoreNotice, process.stderr);
const [status, signal] = await once(run, 'close');
if (status !== 0) fail(`Pact consumer tests failed (exit ${status ?? signal}).`);

const written = readdirSync(outputDir).filter((name) => name.endsWith('.json'));
if (written.length === 0) fail(`The consumer tests wrote no pact into ${rel(outputDir)}.`);
console.log(`Pact consumer tests passed; wrote ${written.map((name) => rel(path.join(outputDir, name))).join(', ')}.`);
if (update) console.log('Commit contracts/pacts/ with the change that made it.');
