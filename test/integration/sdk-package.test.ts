import { execFile, execFileSync, type ExecFileException } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { demoFixturePath } from '../../server/src/features/load/read-fixture';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import { childProcessEnv } from '../support/process-env';

/*
 * The SDK as a partner gets it: the tarball `npm pack -w @loyalty/sdk` makes
 * with this repository's own npm settings (which ignore lifecycle scripts),
 * installed into an app outside the workspace, type-checked strict as ES
 * module and CommonJS, and the README's example run against the real server
 * on port 0, on its success and error paths.
 */

jest.setTimeout(180_000);

const repoRoot = path.resolve(__dirname, '../..');
const sdkRoot = path.join(repoRoot, 'sdk');
const bin = (name: string) => path.join(repoRoot, 'node_modules', '.bin', name);
const shippedFiles = ['CHANGELOG.md', 'LICENSE', 'README.md', 'dist/index.d.mts', 'dist/index.d.ts', 'dist/index.js', 'dist/index.mjs', 'package.json'];

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, env: childProcessEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a compiled example asynchronously: the server it talks to lives in this process. */
function runApp(app: string, script: string, env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script], { cwd: app, env: childProcessEnv(env), timeout: 60_000 }, (error: ExecFileException | null, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** How the partner app is compiled: module systems and resolutions partners use. */
const compilerSettings: Array<[name: string, options: Record<string, string>, include: string[]]> = [
  ['nodenext', { module: 'NodeNext', moduleResolution: 'NodeNext' }, ['src/app.mts', 'src/app.cts']],
  ['bundler', { module: 'ESNext', moduleResolution: 'Bundler' }, ['src/bundled.ts']],
];

/**
 * The TypeScript releases partners compile with, each the project's own
 * install (package.json: `typescript`, and the aliases `typescript-6` and
 * `typescript-7`; 7 is the native compiler, whose `tsc` runs the binary of
 * its platform package). Each checks the app under `nodenext` and `bundler`.
 */
const compilers: Array<[version: string, tsc: string]> = [
  ['5.9', path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc')],
  ['6', path.join(repoRoot, 'node_modules', 'typescript-6', 'bin', 'tsc')],
  ['7', path.join(repoRoot, 'node_modules', 'typescript-7', 'bin', 'tsc')],
];
const checks = compilers.flatMap(([version, compiler]) => compilerSettings.map(([name]) => [version, name, compiler] as const));

function writeTsconfig(name: string, options: Record<string, string>, include: string[]): void {
  const compilerOptions = {
    strict: true,
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    types: ['node'],
    typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
    // The published declarations must compile too.
    skipLibCheck: false,
    outDir: 'out',
    ...options,
  };
  writeFileSync(path.join(app, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions, include }));
}

function tsc(name: string, args: string[], compiler = compilers[0]![1]): void {
  try {
    run(process.execPath, [compiler, '-p', `tsconfig.${name}.json`, ...args], app);
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc (${name}, ${compiler}) failed in the partner app:\n${failure.stdout ?? ''}${failure.stderr ?? ''}`);
  }
}

let scratch: string;
let app: string;
let packedFiles: string[];
let server: TestApp;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'loyalty-partner-'));
  const [packed] = JSON.parse(run('npm', ['pack', '-w', '@loyalty/sdk', '--json', '--pack-destination', scratch], repoRoot)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  packedFiles = packed!.files.map((file) => file.path).sort();

  app = path.join(scratch, 'coffee-kiosk');
  mkdirSync(path.join(app, 'src'), { recursive: true });
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'coffee-kiosk', version: '1.0.0', private: true }));
  // As `npm install @loyalty/sdk` would, from the tarball the registry would serve; the one dependency, openapi-fetch, comes from the registry (or npm's cache).
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(scratch, path.basename(packed!.filename))], app);

  const example = path.join(sdkRoot, 'test', 'readme-example.ts');
  copyFileSync(example, path.join(app, 'src', 'app.mts'));
  copyFileSync(example, path.join(app, 'src', 'app.cts'));
  copyFileSync(example, path.join(app, 'src', 'bundled.ts'));
  for (const [name, options, include] of compilerSettings) writeTsconfig(name, options, include);

  server = await startTestApp({ fixture: JSON.parse(readFileSync(demoFixturePath, 'utf8')), startAt: Date.now() });
});

afterAll(async () => {
  await server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the SDK package', () => {
  it('commits the build of its sources: sdk/dist is what `npm run build -w @loyalty/sdk` writes', () => {
    const fresh = mkdtempSync(path.join(tmpdir(), 'loyalty-sdk-build-'));
    try {
      run(bin('tsup'), ['--out-dir', fresh], sdkRoot);
      const built = readdirSync(fresh).sort();
      expect(built).toEqual(readdirSync(path.join(sdkRoot, 'dist')).sort());
      const stale = built.filter((name) => readFileSync(path.join(fresh, name), 'utf8') !== readFileSync(path.join(sdkRoot, 'dist', name), 'utf8'));
      if (stale.length > 0) throw new Error(`sdk/dist is stale (${stale.join(', ')}): run \`npm run build -w @loyalty/sdk\` and commit sdk/dist`);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('packs the built ES module and CommonJS code with their declarations, the README, the CHANGELOG and the LICENSE, although npm runs no script here', () => {
    expect(packedFiles).toEqual(shippedFiles);
  });

  it('installs from its tarball into an app outside the workspace, with its dependency', () => {
    const installed = path.join(app, 'node_modules', '@loyalty', 'sdk');
    for (const file of shippedFiles) expect(existsSync(path.join(installed, file))).toBe(true);
    expect(existsSync(path.join(app, 'node_modules', 'openapi-fetch', 'package.json'))).toBe(true);
    expect(JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')).dependencies['@loyalty/sdk']).toMatch(/^file:.*\.tgz$/);
  });

  it.each(compilers)('has TypeScript %s to check with', (version, compiler) => {
    expect(run(process.execPath, [compiler, '--version'], app)).toMatch(new RegExp(`^Version ${version.replace('.', '\\.')}\\.`));
  });

  it.each(checks)('type-checks the README example strict in the app with TypeScript %s (%s), the published declarations included', (version, name, compiler) => {
    // The project's own TypeScript under nodenext also emits the build the tests below run: one compile, not two.
    tsc(name, version === compilers[0]![0] && name === 'nodenext' ? [] : ['--noEmit'], compiler);
  });

  describe('the README example, built as ES module and as CommonJS, against the server on port 0', () => {
    const scripts = ['out/app.mjs', 'out/app.cjs'];
    // Built by the type-check above, unless a filter left it out.
    beforeAll(() => {
      if (!existsSync(path.join(app, 'out', 'app.mjs'))) tsc('nodenext', []);
    });
    const env = () => ({ LOYALTY_API_KEY: 'demo_secret_partner_app_0001', LOYALTY_BASE_URL: server.baseUrl });

    it.each(scripts)('%s goes from session to reservation update, signs out and exits 0', async (script) => {
      const outcome = await runApp(app, script, env());
      expect(outcome).toEqual({
        code: 0,
        stdout: expect.stringMatching(/^vd-\S+: .+ points\)\n(.*\n)*Reservation rt-alice-1 holds for \d+ s; \d+ points available\nSigned out\n$/),
        stderr: '',
      });
    });

    it.each(scripts)('%s with an unknown API key says so and exits 1', async (script) => {
      const outcome = await runApp(app, script, { ...env(), LOYALTY_API_KEY: 'pk_unknown_key_0000' });
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toMatch(/^No session: UNAUTHORIZED Missing or unknown API key \(request \S+\)\n$/);
    });

    it.each(scripts)('%s when the reservation has expired says so and exits 1', async (script) => {
      server.advance(3600);
      try {
        const outcome = await runApp(app, script, env());
        expect(outcome.code).toBe(1);
        expect(outcome.stderr).toBe('No such reservation (or it expired)\n');
      } finally {
        server.advance(-3600);
      }
    });

    it.each(scripts)('%s with no API behind its base URL says so and exits 1', async (script) => {
      const outcome = await runApp(app, script, { ...env(), LOYALTY_BASE_URL: 'http://127.0.0.1:9' });
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toMatch(/^No answer from the loyalty API: network after \d+ attempt\(s\), request \S+\n$/);
    });
  });
});
