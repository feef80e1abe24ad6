import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SDK_VERSION } from '@loyalty/sdk';

const sdkRoot = join(__dirname, '..');
const repoRoot = join(sdkRoot, '..');
const pkg = JSON.parse(readFileSync(join(sdkRoot, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  repository: { type: string; url: string; directory: string };
  homepage: string;
  publishConfig: Record<string, unknown>;
  type?: string;
  main: string;
  module: string;
  types: string;
  files: string[];
  dependencies: Record<string, string>;
  exports: Record<string, { import: { types: string; default: string }; require: { types: string; default: string } }>;
};

describe('sdk/package.json', () => {
  it('has the version the SDK sends in User-Agent', () => {
    expect(SDK_VERSION).toBe(pkg.version);
  });

  // tsup names its output after the package type: without "type": "module",
  // CommonJS is .js/.d.ts and ESM is .mjs/.d.mts.
  it('points main, module, types and the exports map at the files tsup emits', () => {
    expect(pkg.type).toBeUndefined();
    expect(pkg.exports['.']).toEqual({
      import: { types: './dist/index.d.mts', default: './dist/index.mjs' },
      require: { types: './dist/index.d.ts', default: './dist/index.js' },
    });
    expect(pkg.main).toBe(pkg.exports['.']?.require.default);
    expect(pkg.types).toBe(pkg.exports['.']?.require.types);
    expect(pkg.module).toBe(pkg.exports['.']?.import.default);
  });

  it('publishes only the build, the README, the CHANGELOG and the LICENSE', () => {
    expect([...pkg.files].sort()).toEqual(
      ['CHANGELOG.md', 'LICENSE', 'README.md', 'dist/index.d.mts', 'dist/index.d.ts', 'dist/index.js', 'dist/index.mjs'].sort(),
    );
  });

  // npm packs only what is under sdk/: the SDK carries copies, which must be the repository's.
  it.each(['LICENSE', 'CHANGELOG.md'])("ships the repository's %s (sdk/ holds a copy: npm run release writes it)", (file) => {
    const same = readFileSync(join(sdkRoot, file), 'utf8') === readFileSync(join(repoRoot, file), 'utf8');
    if (!same) throw new Error(`sdk/${file} differs from ${file}: copy it (cp ${file} sdk/${file})`);
  });

  it('is Apache-2.0, as the repository, and says where its source is', () => {
    expect(pkg.license).toBe('Apache-2.0');
    expect(readFileSync(join(repoRoot, 'LICENSE'), 'utf8')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    expect(pkg.repository).toEqual({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/github\.com\/[^/]+\/[^/]+\.git$/), directory: 'sdk' });
    const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    expect(pkg.homepage).toBe(`${repository}/tree/main/sdk#readme`);
  });

  // npm provenance ties the published tarball to the workflow run that built it.
  it('publishes publicly, with provenance', () => {
    expect(pkg.publishConfig).toEqual({ access: 'public', provenance: true });
  });

  it('depends on openapi-fetch only', () => {
    expect(Object.keys(pkg.dependencies)).toEqual(['openapi-fetch']);
  });
});
