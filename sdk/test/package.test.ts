import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SDK_VERSION } from '@loyalty/sdk';

const sdkRoot = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(sdkRoot, 'package.json'), 'utf8')) as {
  version: string;
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

  it('publishes only the build and the README', () => {
    expect(pkg.files.sort()).toEqual(
      ['README.md', 'dist/index.d.mts', 'dist/index.d.ts', 'dist/index.js', 'dist/index.mjs'].sort(),
    );
  });

  it('depends on openapi-fetch only', () => {
    expect(Object.keys(pkg.dependencies)).toEqual(['openapi-fetch']);
  });
});
