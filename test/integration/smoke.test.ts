import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { demoFixturePath } from '../../server/src/features/load/read-fixture';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';

// scripts/smoke.mjs is what the GitHub workflow runs against the built image:
// here it runs against the app on the demo data, and against one without it.

// Each test starts the app and a process of its own: seconds on a busy machine.
jest.setTimeout(60_000);

const script = path.resolve(__dirname, '../../scripts/smoke.mjs');
const demo = JSON.parse(readFileSync(demoFixturePath, 'utf8')) as Record<string, unknown>;

/** The script against `baseUrl`, waiting up to `waitMs` for it to answer (a server that is up answers its first /healthz). */
function smoke(baseUrl: string, waitMs = 2000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, baseUrl], { env: { ...process.env, SMOKE_WAIT_MS: String(waitMs) }, timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let server: TestApp | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it('passes against a server with the demo data', async () => {
  server = await startTestApp({ fixture: demo, startAt: Date.now() });
  const outcome = await smoke(server.baseUrl);
  expect(outcome.stderr).toBe('');
  expect(outcome.code).toBe(0);
  expect(outcome.stdout.match(/^smoke: ok /gm)).toHaveLength(6);
});

it('fails, saying what came back, against a server without it', async () => {
  server = await startTestApp({ fixture: { ...demo, members: [], reservations: [] }, startAt: Date.now() });
  const outcome = await smoke(server.baseUrl);
  expect(outcome.code).toBe(1);
  expect(outcome.stderr).toMatch(/^smoke: FAILED POST \/client\/users\/m-alice\/sessions: expected HTTP 201 \(HTTP 404: .*MEMBER_NOT_FOUND/);
});

it('fails when nothing answers', async () => {
  const outcome = await smoke('http://127.0.0.1:9', 100);
  expect(outcome.code).toBe(1);
  expect(outcome.stderr).toMatch(/^smoke: FAILED GET \/healthz: no answer within 100 ms/);
});
