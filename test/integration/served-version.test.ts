// What a running server says it is: the spec it serves at /openapi.json and
// its log lines carry the one version of this build, the repository's
// (openapi/openapi.yaml, server/package.json); between releases that version
// is marked unreleased (test/spec/versions.test.ts keeps the mark in step
// with CHANGELOG.md's [Unreleased]). The metrics' `version` label: metrics.test.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';

const root = path.join(__dirname, '../..');
const spec = parse(readFileSync(path.join(root, 'openapi/openapi.yaml'), 'utf8')) as { info: { version: string } };
const { version: serverVersion } = JSON.parse(readFileSync(path.join(root, 'server/package.json'), 'utf8')) as { version: string };

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('the served version and licence', () => {
  it("/openapi.json says the spec's version, which is the server's", async () => {
    const served = await app.send('GET', '/openapi.json', { apiKey: null });
    expect(served.body).toMatchObject({ info: { version: spec.info.version } });
    expect(spec.info.version).toBe(serverVersion);
  });

  it("the server's log lines say the same version", () => {
    expect(app.logs.length).toBeGreaterThan(0);
    expect(app.logs.map((line) => line.version)).toEqual(app.logs.map(() => serverVersion));
  });

  it("/openapi.json says the repository's licence, Apache-2.0, with its address", async () => {
    const served = await app.send('GET', '/openapi.json', { apiKey: null });
    expect(served.body).toMatchObject({ info: { license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' } } });
    expect(readFileSync(path.join(root, 'LICENSE'), 'utf8')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
  });
});
