import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/*
 * A real server process that refuses to start: one plain-text message on
 * stderr that says why and where, exit code 1, and no stack trace unless
 * LOG_LEVEL=debug asks for one. (`node server/src/main.ts`, compiled on the
 * fly by test/soak/register.cjs.)
 */

jest.setTimeout(60_000);

const repoRoot = path.resolve(__dirname, '../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'start-failures-'));
const badFixture = path.join(scratch, 'bad.json');
writeFileSync(badFixture, JSON.stringify({ members: [{ correlationId: 'm-x', pointBalance: -1 }] }));
const longSessions = path.join(scratch, 'long-sessions.json');
writeFileSync(longSessions, JSON.stringify({ clients: [{ clientId: 'app', apiKey: 'demo_secret_app_0001', enabledBusinessUnits: ['LCL'], sessionTtlSeconds: 100_000 }] }));

/** The `ENV` settings of the image's runtime stage (server/Dockerfile), as `docker run` hands them to the server. */
function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync(path.join(repoRoot, 'server/Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const runtimeAt = dockerfile.search(/^FROM \S+ AS runtime$/m);
  if (runtimeAt < 0) throw new Error('server/Dockerfile has no runtime stage');
  const settings = [...dockerfile.slice(runtimeAt).matchAll(/^ENV (.+)$/gm)].flatMap((line) => line[1]!.trim().split(/\s+/));
  return Object.fromEntries(settings.map((setting) => [setting.slice(0, setting.indexOf('=')), setting.slice(setting.indexOf('=') + 1)]));
}

function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['-r', path.join(repoRoot, 'test/soak/register.cjs'), path.join(repoRoot, 'server/src/main.ts')],
      // Nothing of the test run's own store or seed settings: each case sets what it needs.
      { cwd: repoRoot, env: { PATH: process.env.PATH, PORT: '0', METRICS_PORT: '0', ...env }, timeout: 30_000 },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

let blocker: Server;
beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '0.0.0.0', resolve));
});
afterAll(() => blocker.close());

describe('a server that cannot start', () => {
  it.concurrent.each([
    ['an invalid variable', () => ({ PORT: 'abc' }), /^Invalid configuration:\n {2}- PORT must be an integer from 0 to 65535 \(got "abc"\)\n$/],
    ['a bad fixture, with its path', () => ({ SEED_FILE: badFixture }), new RegExp(`^Invalid fixture file ${badFixture}:\\n  /members/0/pointBalance: must be >= 0\\n$`)],
    [
      'a session lifetime past a day, with its path',
      () => ({ SEED_FILE: longSessions }),
      new RegExp(`^Invalid fixture file ${longSessions}:\\n  /clients/0/sessionTtlSeconds: must be <= 86400\\n$`),
    ],
    [
      "the image's settings without MONGODB_URI, naming it",
      () => imageEnv(),
      /^MONGODB_URI is not set, and ALLOW_EMBEDDED_STORE=false refuses the embedded store [^\n]*\n$/,
    ],
    [
      'an unreachable MongoDB, with the driver\'s cause and without the password',
      () => ({ MONGODB_URI: 'mongodb://app:s3cret@127.0.0.1:1/?directConnection=true', MONGODB_SERVER_SELECTION_TIMEOUT_MS: '300' }),
      /^Cannot reach MongoDB at 127\.0\.0\.1:1\/loyalty \(within MONGODB_SERVER_SELECTION_TIMEOUT_MS=300\): connect ECONNREFUSED 127\.0\.0\.1:1\n$/,
    ],
    ['a port already in use', () => ({ PORT: String((blocker.address() as AddressInfo).port) }), /^Port \d+ is already in use: stop what listens there, or set PORT to another port\.\n$/],
  ])('%s: one plain message on stderr, exit 1', async (_case, env, message) => {
    const outcome = await start(env());
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(message);
    expect(outcome.stderr).not.toContain('s3cret');
  });

  it('adds the stack trace with LOG_LEVEL=debug', async () => {
    const outcome = await start({ SEED_FILE: badFixture, LOG_LEVEL: 'debug' });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(/^Invalid fixture file [^\n]*\n {2}[^\n]*\n\nFixtureError: [\s\S]*\n\s+at parseFixture /);
  });
});
