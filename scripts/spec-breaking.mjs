#!/usr/bin/env node
// The breaking-change gate: compares openapi/openapi.yaml with the last released
// spec (the highest version in openapi/released/) using Redocly CLI's diff and
// the diff-recommended rules (openapi/redocly.diff.yaml), and fails when a
// change can break a correct client while info.version keeps the released
// major version (CONTRIBUTING.md, "Versioning and releases"). Additions pass: the release that
// ships them raises the minor version. Between releases info.version names the
// next one marked unreleased (`1.1.0-unreleased`): its release part counts.
// Needs no network and no git tags.
//
//   node scripts/spec-breaking.mjs [--spec <file>] [--released <dir>]
//
// The options let the tests run the gate on modified copies of the spec.
import path from 'node:path';
import { parseArgs } from 'node:util';
import semver from 'semver';
import { describeLocation, describePointer, diffSpecs, releasedDir, releasedSpecs, root, specPath, specVersion } from './contract-versions.mjs';

const { values: options } = parseArgs({
  options: { spec: { type: 'string', default: specPath }, released: { type: 'string', default: releasedDir } },
});
const spec = path.resolve(options.spec);
const shown = (file) => (file.startsWith(root) ? path.relative(root, file) : file);

function fail(lines) {
  for (const line of lines) console.error(line);
  process.exit(1);
}

let version;
let released;
let report;
try {
  version = specVersion(spec);
  released = releasedSpecs(path.resolve(options.released)).at(-1);
  if (!released) {
    fail([`spec:breaking  no released spec in ${shown(path.resolve(options.released))}: \`npm run release -- <version>\` records one.`]);
  }
  if (semver.lt(version.release, released.version)) {
    fail([`spec:breaking  info.version ${version.version} of ${shown(spec)} is lower than the last release, ${released.version}.`]);
  }
  if (version.unreleased && !semver.gt(version.release, released.version)) {
    fail([`spec:breaking  info.version ${version.version} of ${shown(spec)} marks a release already made: the next one is above ${released.version}.`]);
  }
  report = diffSpecs(released.file, spec);
} catch (error) {
  // A version that is not MAJOR.MINOR.PATCH, or a diff that could not run (a spec it cannot read).
  fail([`spec:breaking  ${error.message}`]);
}
const majorRaised = semver.major(version.release) > semver.major(released.version);
const breaking = report.changes.filter((change) => change.impact === 'major');
const additions = report.changes.filter((change) => change.impact === 'minor');
const { major, minor, patch } = report.summary;
console.log(
  `spec:breaking  ${shown(spec)} (${version.version}) against ${shown(released.file)}: ` +
    `${major} breaking, ${minor} additive, ${patch} other change(s) (redocly diff, openapi/redocly.diff.yaml)`,
);

for (const change of additions) {
  console.log(`  + ${describePointer(change.path)}`);
  // The decision makes a new status major when clients must handle it, which
  // the diff cannot know: it rates every new status minor. A person decides.
  if (change.typeName === 'Response' && change.kind === 'added') {
    console.log('      A new status: a major change if clients must handle it (CONTRIBUTING.md, "Versioning and releases"); the diff cannot tell.');
  }
}
for (const change of breaking) {
  console.log(`  ✖ ${describePointer(change.path)}`);
  for (const verdict of change.verdicts) {
    console.log(`      ${verdict.message} (${verdict.ruleId})`);
    console.log(`      at ${describeLocation(verdict.location)}`);
  }
}

if (breaking.length > 0 && !majorRaised) {
  const next = semver.inc(released.version, 'major');
  fail([
    `spec:breaking  ${breaking.length} change(s) above can break a client of ${released.version}, and info.version ${version.version} keeps its major version.`,
    `  Undo them, or make them the next major version: say what breaks under [Unreleased] in CHANGELOG.md, then`,
    `  \`npm run release -- ${next}-unreleased\` (the build says so until the release) or \`npm run release -- ${next}\`.`,
  ]);
}
if (breaking.length > 0) {
  console.log(`spec:breaking  allowed: info.version ${version.version} is a new major version after ${released.version}.`);
}
