#!/usr/bin/env node
// Prints the shape of server/src: lines per top-level folder (production and
// test code apart), the import cycles and the imports that run up the layers
// of .dependency-cruiser.cjs, and, with MONGODB_URI set, the files Operation
// B passes from main.ts to MongoDB and back (scripts/operation-b-path.cjs:
// the production files whose code runs for one request in steady state; it
// builds the server first and uses a database of its own, dropped after).
// For before-and-after notes; not part of `npm test` (`npm run arch:check`
// is the check).
//
// Test code is a `*.test.ts` file or anything under a `test-support/` folder.
// Lines are counted as `wc -l` counts them, blank lines and comments included.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(root, 'server', 'src');
const topFiles = '(files at the top)';

function* typeScriptFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* typeScriptFiles(path);
    else if (entry.name.endsWith('.ts')) yield relative(srcDir, path).split(sep).join('/');
  }
}

function isTestCode(path) {
  return path.endsWith('.test.ts') || /(^|\/)test-support\//.test(path);
}

function lineCount(path) {
  const text = readFileSync(join(srcDir, path), 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function linesPerFolder() {
  const rows = new Map();
  for (const path of typeScriptFiles(srcDir)) {
    const folder = path.includes('/') ? `${path.split('/')[0]}/` : topFiles;
    const row = rows.get(folder) ?? { production: 0, test: 0 };
    row[isTestCode(path) ? 'test' : 'production'] += lineCount(path);
    rows.set(folder, row);
  }
  return [...rows].sort(([a], [b]) => a.localeCompare(b));
}

/** dependency-cruiser's JSON answer for server/src under the project's rules. */
function cruise() {
  const cli = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
  const run = spawnSync(process.execPath, [cli, 'server/src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0 || !run.stdout) {
    process.stderr.write(run.stderr || `dependency-cruiser exited with ${run.status}\n`);
    process.exit(1);
  }
  return JSON.parse(run.stdout);
}

/** The cycle paths the check reported, each as `a -> b -> a`. */
function cyclePaths(violations) {
  return violations
    .filter((violation) => violation.rule.name === 'no-circular')
    .map((violation) => [violation.from, ...violation.cycle.map((step) => step.name)]);
}

/**
 * The circles: groups of modules that reach one another (a module on two
 * cycles joins them into one group), as a reader counts tangles.
 */
function circles(paths) {
  const parent = new Map();
  const find = (name) => {
    while (parent.get(name) !== name) name = parent.get(name);
    return name;
  };
  for (const path of paths) {
    for (const name of path) if (!parent.has(name)) parent.set(name, name);
    for (const name of path.slice(1)) parent.set(find(name), find(path[0]));
  }
  const groups = new Map();
  for (const name of parent.keys()) groups.set(find(name), [...(groups.get(find(name)) ?? []), name]);
  return [...groups.values()].map((group) => group.sort());
}

function pad(value, width) {
  return String(value).padStart(width);
}

const rows = linesPerFolder();
const total = rows.reduce((sum, [, row]) => ({ production: sum.production + row.production, test: sum.test + row.test }), {
  production: 0,
  test: 0,
});
const nameWidth = Math.max(...rows.map(([name]) => name.length), 'server/src'.length);

console.log('Lines of server/src (wc -l), production and test code:');
console.log(`  ${'folder'.padEnd(nameWidth)}  ${pad('production', 10)}  ${pad('test', 7)}  ${pad('total', 7)}`);
for (const [name, row] of [...rows, ['server/src', total]]) {
  console.log(`  ${name.padEnd(nameWidth)}  ${pad(row.production, 10)}  ${pad(row.test, 7)}  ${pad(row.production + row.test, 7)}`);
}

const result = cruise();
const violations = result.summary.violations;
const paths = cyclePaths(violations);
const groups = circles(paths);
const upward = violations.filter((v) => v.rule.name.startsWith('layer-'));
const others = violations.filter((v) => v.rule.name !== 'no-circular' && !v.rule.name.startsWith('layer-'));

console.log(`\nModules cruised (server/src and what it imports): ${result.summary.totalCruised}, imports: ${result.summary.totalDependenciesCruised}`);
console.log(`Circles (groups of modules that import one another): ${groups.length}`);
for (const group of groups) console.log(`  ${group.join(', ')}`);
console.log(`Cycle paths reported by no-circular: ${paths.length}`);
for (const path of paths) console.log(`  ${path.join(' -> ')}`);
console.log(`Imports that run up the layers: ${upward.length}`);
for (const v of upward) console.log(`  ${v.rule.name}: ${v.from} -> ${v.to}`);
console.log(`Other rule violations: ${others.length}`);
for (const v of others) console.log(`  ${v.rule.name}: ${v.from} -> ${v.to}`);

/** Operation B's path on MongoDB, or null without MONGODB_URI. */
function operationBPath() {
  if (!process.env.MONGODB_URI) return null;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', '-s', 'build', '-w', '@loyalty/server'], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' });
  if (build.status !== 0) {
    process.stderr.write(build.stdout + build.stderr);
    process.exit(1);
  }
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'operation-b-path.cjs')], { cwd: root, encoding: 'utf8', env: process.env });
  if (run.status !== 0 || !run.stdout) {
    process.stderr.write(run.stderr || `operation-b-path.cjs exited with ${run.status}\n`);
    process.exit(1);
  }
  return JSON.parse(run.stdout).files;
}

const path = operationBPath();
if (path === null) {
  console.log('\nOperation B\'s path: not measured (set MONGODB_URI to a MongoDB where a database of its own may be written and dropped)');
} else {
  console.log(`\nOperation B's path on MongoDB, main.ts to MongoDB and back (files whose code runs for one request): ${path.length}`);
  const width = Math.max(...path.map((file) => file.path.length));
  for (const file of path) console.log(`  ${file.path.padEnd(width)}  ${file.functions.join(', ')}`);
}
