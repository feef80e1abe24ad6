// Versions that follow the contract: info.version is
// a semantic version, the SDK's package version has its major and minor (the
// server's is the SDK's), every
// released version has a CHANGELOG.md entry, and the current contract is the
// last one recorded in openapi/released/ (what `npm run release` keeps true).
// Between releases, the three say they are unreleased: they name the next
// release marked `-unreleased` while CHANGELOG.md's [Unreleased] says
// something, and only then (`npm run release -- <version>-unreleased`).
// SDK_VERSION equals sdk/package.json's version: sdk/test/package.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.join(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
/** A release MAJOR.MINOR.PATCH, or the next one marked unreleased (scripts/contract-versions.mjs). */
const contractVersion = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-unreleased)?$/;

const specVersion: unknown = parse(read('openapi/openapi.yaml')).info.version;
const sdkVersion: unknown = JSON.parse(read('sdk/package.json')).version;
const serverVersion: unknown = JSON.parse(read('server/package.json')).version;
const changelog = read('CHANGELOG.md');
const unreleasedNotes = /^## \[Unreleased\][^\n]*\n([\s\S]*?)(?=^## \[|(?![\s\S]))/m.exec(changelog)?.[1]?.trim() ?? '';
const releasedVersions = readdirSync(path.join(root, 'openapi/released'))
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => name.replace(/\.yaml$/, ''));
const lastRelease = [...releasedVersions].sort(byVersion).at(-1);

function match(version: unknown): RegExpExecArray {
  const found = typeof version === 'string' ? contractVersion.exec(version) : null;
  if (!found) throw new Error(`${JSON.stringify(version)} is neither MAJOR.MINOR.PATCH nor MAJOR.MINOR.PATCH-unreleased`);
  return found;
}
function parts(version: unknown): number[] {
  return match(version).slice(1, 4).map(Number);
}

function isMarkedUnreleased(version: unknown): boolean {
  return match(version)[4] !== undefined;
}

function byVersion(a: string, b: string): number {
  const [x, y] = [parts(a), parts(b)];
  return (x[0]! - y[0]!) || (x[1]! - y[1]!) || (x[2]! - y[2]!);
}

describe('versions', () => {
  it('info.version is a semantic version MAJOR.MINOR.PATCH, or the next release marked MAJOR.MINOR.PATCH-unreleased', () => {
    expect(specVersion).toMatch(contractVersion);
  });

  it("the SDK's package version has the contract's major and minor version", () => {
    expect(parts(sdkVersion).slice(0, 2)).toEqual(parts(specVersion).slice(0, 2));
  });

  it("the server's version (on its log lines and spans, and its image's tag) is the SDK's: a release sets both", () => {
    expect(serverVersion).toBe(sdkVersion);
  });

  it('the SDK and the server are marked unreleased exactly when the contract is', () => {
    expect(isMarkedUnreleased(sdkVersion)).toBe(isMarkedUnreleased(specVersion));
  });

  it('the current contract is the last released one, or a later version marked unreleased', () => {
    if (isMarkedUnreleased(specVersion)) expect(byVersion(String(specVersion).replace(/-unreleased$/, ''), lastRelease!)).toBeGreaterThan(0);
    else expect(specVersion).toBe(lastRelease);
  });

  // What the server serves (/openapi.json, its log lines, spans and metrics)
  // and a tarball packed from the repository never claim a release they are not.
  it("the build is marked unreleased exactly when CHANGELOG.md's [Unreleased] says something", () => {
    const marked = isMarkedUnreleased(specVersion);
    if (unreleasedNotes && !marked) {
      throw new Error(`[Unreleased] has notes but info.version says ${String(specVersion)}, a release: mark the build, \`npm run release -- <next version>-unreleased\``);
    }
    if (!unreleasedNotes && marked) throw new Error(`info.version ${String(specVersion)} is marked unreleased but [Unreleased] says nothing`);
  });

  // A release's notes are its entry; a version marked unreleased has them under [Unreleased].
  it.each([
    ['the contract', specVersion],
    ['the SDK', sdkVersion],
  ])('CHANGELOG.md has the notes of the version of %s', (_, version) => {
    const heading = isMarkedUnreleased(version) ? /^## \[Unreleased\]$/m : new RegExp(`^## \\[${String(version).replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm');
    expect(changelog).toMatch(heading);
  });

  it('CHANGELOG.md has an entry for every released version, newest first, under [Unreleased]', () => {
    const entries = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((found) => found[1]);
    expect(entries).toEqual(['Unreleased', ...[...releasedVersions].sort(byVersion).reverse()]);
  });
});
