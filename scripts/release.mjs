#!/usr/bin/env node
// Releases the contract and the SDK together at one version:
//
//   npm run release -- <version>        e.g. npm run release -- 1.1.0
//   npm run release -- <version>-unreleased   marks the build between releases
//
// 1. checks the version: MAJOR.MINOR.PATCH, above the last release, and at
//    least the bump the changes since that release need, as Redocly's diff
//    rates them (a breaking change needs a major, an addition a minor);
// 2. turns CHANGELOG.md's [Unreleased] section into the version's entry (it
//    must say something: every released version has an entry), and copies
//    it to sdk/CHANGELOG.md, which the SDK's tarball carries;
// 3. sets info.version in openapi/openapi.yaml, the SDK's and the server's
//    package versions (sdk/package.json, server/package.json and
//    package-lock.json, through `npm version`; the server's is on its log
//    lines and spans, and names its image) and SDK_VERSION in
//    sdk/src/version.ts, then rebuilds sdk/dist, which embeds it;
// 4. records the spec as openapi/released/<version>.yaml, the base of
//    `npm run spec:breaking` from then on.
//
// With `<version>-unreleased` (e.g. 1.1.0-unreleased) it marks the build
// between releases instead: the same checks of the version, and [Unreleased]
// must say something; then step 3 only, with the marked version, so that the
// served spec, the server's version and a tarball packed from the repository
// say they are unreleased. No changelog entry, no released spec.
//
// Everything is checked before anything is written. Nothing is committed,
// tagged or published: review `git diff`, run `npm test`, commit.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { parseDocument } from 'yaml';
import { contractVersion, describePointer, diffSpecs, releasedDir, releasedSpecs, root, specPath, specVersion } from './contract-versions.mjs';

const changelogPath = path.join(root, 'CHANGELOG.md');
const sdkVersionPath = path.join(root, 'sdk/src/version.ts');

function stop(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

function checkBump(version) {
  const last = releasedSpecs().at(-1);
  if (!last) return; // The first release: nothing to compare with.
  if (!semver.gt(version, last.version)) stop(`${version} is not above the last release, ${last.version}.`);
  const report = diffSpecs(last.file, specPath);
  const needed = report.bump === 'major' || report.bump === 'minor' || report.bump === 'patch' ? semver.inc(last.version, report.bump) : null;
  if (needed && semver.lt(version, needed)) {
    const reasons = report.changes.filter((change) => change.impact === report.bump).map((change) => `  - ${describePointer(change.path)}`);
    stop(`the changes since ${last.version} need at least ${needed} (a ${report.bump} version):\n${reasons.join('\n')}`);
  }
}

/** CHANGELOG.md's text and where its [Unreleased] notes are; stops when they say nothing. */
function unreleasedNotes(version) {
  const text = readFileSync(changelogPath, 'utf8');
  const heading = /^## \[Unreleased\][^\n]*\n/m.exec(text);
  if (!heading) stop('CHANGELOG.md has no "## [Unreleased]" section.');
  if (text.includes(`## [${version}]`)) stop(`CHANGELOG.md already has an entry for ${version}.`);
  const notesStart = heading.index + heading[0].length;
  const nextEntry = text.slice(notesStart).search(/^## \[/m);
  const notesEnd = nextEntry === -1 ? text.length : notesStart + nextEntry;
  const notes = text.slice(notesStart, notesEnd).trim();
  if (!notes) stop('CHANGELOG.md says nothing under [Unreleased]: write what changed for clients there first.');
  return { text, notes, notesStart, notesEnd };
}

/** CHANGELOG.md with its [Unreleased] notes moved under `## [version] - date`, and an empty [Unreleased] above. */
function changelogWithEntry(version, date) {
  const { text, notes, notesStart, notesEnd } = unreleasedNotes(version);
  return `${text.slice(0, notesStart)}\n## [${version}] - ${date}\n\n${notes}\n\n${text.slice(notesEnd)}`;
}

/** openapi.yaml with info.version replaced in place, the rest of the text untouched. */
function specWithVersion(version) {
  const text = readFileSync(specPath, 'utf8');
  const node = parseDocument(text).getIn(['info', 'version'], true);
  if (!node?.range) stop('openapi/openapi.yaml has no info.version.');
  const [start, valueEnd] = node.range;
  return `${text.slice(0, start)}${version}${text.slice(valueEnd)}`;
}

function sdkVersionSource(version) {
  const text = readFileSync(sdkVersionPath, 'utf8');
  const constant = /^export const SDK_VERSION = '[^']*';$/m;
  if (!constant.test(text)) stop(`${path.relative(root, sdkVersionPath)} has no "export const SDK_VERSION = '...';" line.`);
  return text.replace(constant, `export const SDK_VERSION = '${version}';`);
}

const [requested] = process.argv.slice(2);
if (!requested) stop('usage: npm run release -- <version>   (MAJOR.MINOR.PATCH, or MAJOR.MINOR.PATCH-unreleased to mark the build)');
let parsed;
try {
  parsed = contractVersion(requested, 'the version');
} catch (error) {
  stop(error.message);
}
const { version, release, unreleased } = parsed;
checkBump(release);
const date = new Date().toISOString().slice(0, 10);
// A mark writes no entry, but it says what it marks: the notes must be there.
if (unreleased) unreleasedNotes(release);
const changelog = unreleased ? null : changelogWithEntry(version, date);
const spec = specWithVersion(version);
const sdkSource = sdkVersionSource(version);

if (changelog) {
  writeFileSync(changelogPath, changelog);
  // The SDK's tarball carries its own copy (npm packs only what is under sdk/).
  writeFileSync(path.join(root, 'sdk/CHANGELOG.md'), changelog);
}
writeFileSync(specPath, spec);
if (specVersion(specPath).version !== version) stop('info.version did not take the new version; openapi/openapi.yaml is left as written.');
writeFileSync(sdkVersionPath, sdkSource);
// The npm that runs `npm run release` (npm_execpath), through this Node: no shell, any platform.
const npm = (args) =>
  process.env.npm_execpath
    ? execFileSync(process.execPath, [process.env.npm_execpath, ...args], { cwd: root, stdio: 'inherit' })
    : execFileSync('npm', args, { cwd: root, stdio: 'inherit' });
// npm keeps each workspace's package.json and its entry in package-lock.json together.
npm(['version', version, '--no-git-tag-version', '--allow-same-version', '-w', '@loyalty/sdk', '-w', '@loyalty/server']);
npm(['run', '-s', 'build', '-w', '@loyalty/sdk']);
if (unreleased) {
  console.log(`release: the build is marked ${version}: info.version, the SDK's and the server's versions, the SDK's build. No release was made.`);
} else {
  mkdirSync(releasedDir, { recursive: true });
  copyFileSync(specPath, path.join(releasedDir, `${version}.yaml`));
  console.log(`release: ${version} (${date}): CHANGELOG.md entry, info.version, the SDK's and the server's versions, the SDK's build, openapi/released/${version}.yaml.`);
}
console.log('release: review `git diff`, run `npm test`, then commit. Nothing was committed, tagged or published.');
