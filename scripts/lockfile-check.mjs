#!/usr/bin/env node
// Fails when `npm ci` could fail on another machine because of the lockfile.
//
// npm records every platform's optional binary (@swc/core-darwin-arm64,
// @rollup/rollup-win32-x64-msvc, ...) in package-lock.json, whatever machine
// wrote it, but only when that version of the binary exists in the registry.
// When one is missing, the lockfile silently lacks it, npm 10 still installs,
// and npm 11 refuses (`npm ci` EUSAGE "Missing: ... from lock file").
// The cure is to pin the parent to a version whose binaries all exist (see
// `overrides` in package.json and "Reproducible installs" in CONTRIBUTING.md).
//
// This check needs no network: every dependency and optional dependency of
// every package in the lockfile must resolve, by Node's lookup, to an entry
// of the lockfile.
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

if (lock.lockfileVersion !== 3) fail([`lockfileVersion is ${lock.lockfileVersion}; expected 3 (npm 9 or later)`]);

const packages = lock.packages ?? {};

/** The lockfile key `name` resolves to from the package at `from` ('' is the root), or null. */
function resolve(from, name) {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (candidate in packages) return candidate;
    if (!base) return null;
    const at = base.lastIndexOf('/node_modules/');
    base = at === -1 ? '' : base.slice(0, at);
  }
}

const problems = [];
for (const [location, entry] of Object.entries(packages)) {
  if (entry.link) continue;
  for (const field of ['dependencies', 'optionalDependencies']) {
    for (const name of Object.keys(entry[field] ?? {})) {
      if (resolve(location, name) === null) problems.push(`${location || '(root)'}: ${field} ${name} is not in the lockfile`);
    }
  }
}

if (problems.length > 0) fail(problems);
checkTscBin();
console.log(`lockfile-check  package-lock.json: every dependency of ${Object.keys(packages).length} entries is locked`);

function fail(lines) {
  console.error('lockfile-check  npm ci would fail (npm 11) on another machine:');
  for (const line of lines.slice(0, 40)) console.error(`  ${line}`);
  if (lines.length > 40) console.error(`  ... and ${lines.length - 40} more`);
  console.error('Pin the parent package to a version whose platform packages all exist (package.json "overrides"), then run npm install.');
  process.exit(1);
}

/**
 * The SDK's consumer check installs TypeScript 6 and 7 beside the project's
 * own compiler, under the aliases `typescript-6` and `typescript-7`, whose
 * `tsc` bins compete for node_modules/.bin/tsc. `npm ci` links the project's
 * (`typescript` sorts first); an `npm install` of one alias alone may link
 * its own instead, and every `tsc` of the scripts would then be that one.
 */
function checkTscBin() {
  const bin = join(root, 'node_modules/.bin/tsc');
  let target;
  try {
    if (!lstatSync(bin).isSymbolicLink()) return; // Windows: a command shim
    target = readlinkSync(bin);
  } catch {
    return; // Not installed yet: npm ci will link it.
  }
  if (!/(^|[\\/])typescript[\\/]bin[\\/]tsc$/.test(target)) {
    console.error(`lockfile-check  node_modules/.bin/tsc is ${target}, not the project's TypeScript (node_modules/typescript): run npm ci`);
    process.exit(1);
  }
}
