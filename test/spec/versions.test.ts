// Versions that follow the contract: info.version is
// a semantic version, the SDK's package version has its major and minor (the
// server's is the SDK's), every
// released version has a CHANGELOG.md entry, and the current contract is the
// last one recorded in openapi/released/ (what `npm run release` keeps true).
// SDK_VERSION equals sdk/package.json's version: sdk/test/package.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.join(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const plainVersion = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

const specVersion: unknown = parse(read('openapi/openapi.yaml')).info.version;
const sdkVersion: unknown = JSON.parse(read('sdk/package.json')).version;
const serverVersion: unknown = JSON.parse(read('server/package.json')).version;
const changelog = read('CHANGELOG.md');
const releasedVersions = readdirSync(path.join(root, 'openapi/released'))
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => name.replace(/\.yaml$/, ''));

function parts(version: unknown): number[] {
  const match = typeof version === 'string' ? plainVersion.exec(version) : null;
  if (!match) throw new Error(`${JSON.stringify(version)} is not MAJOR.MINOR.PATCH`);
  return match.slice(1).map(Number);
}

function byVersion(a: string, b: string): number {
  const [x, y] = [parts(a), parts(b)];
  return (x[0]! - y[0]!) || (x[1]! - y[1]!) || (x[2]! - y[2]!);
}

describe('versions', () => {
  it("info.version is a semantic version MAJOR.MINOR.PATCH", () => {
    expect(specVersion).toMatch(plainVersion);
  });

  it("the SDK's package version has the contract's major and minor version", () => {
    expect(parts(sdkVersion).slice(0, 2)).toEqual(parts(specVersion).slice(0, 2));
  });

  it("the server's version (on its log lines and spans, and its image's tag) is the SDK's: a release sets both", () => {
    expect(serverVersion).toBe(sdkVersion);
  });

  it('the current contract is the last released one', () => {
    expect(releasedVersions.sort(byVersion).at(-1)).toBe(specVersion);
  });

  it.each([
    ['the contract', specVersion],
    ['the SDK', sdkVersion],
  ])('CHANGELOG.md has an entry for the version of %s', (_, version) => {
    expect(changelog).toMatch(new RegExp(`^## \\[${String(version).replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
  });

  it('CHANGELOG.md has an entry for every released version, newest first, under [Unreleased]', () => {
    const entries = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((match) => match[1]);
    expect(entries).toEqual(['Unreleased', ...[...releasedVersions].sort(byVersion).reverse()]);
  });
});
