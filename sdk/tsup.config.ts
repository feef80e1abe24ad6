import { defineConfig } from 'tsup';

/**
 * The build is committed (sdk/dist), like the generated types: `npm pack` and
 * `npm publish` never run a build when scripts are ignored (this repository
 * ignores them, see .npmrc), so what the tarball holds must already be there.
 * `prepack` still rebuilds when scripts run, and the package test rebuilds
 * and fails on any difference with what is committed.
 */
const header = '/* Built from sdk/src by tsup (npm run build -w @loyalty/sdk). Do not edit: commit what the build writes. */';

// ESM (index.mjs, index.d.mts) and CommonJS (index.js, index.d.ts) from one
// source. The package has no "type" field, so `.js` is CommonJS and ESM gets
// the `.mjs` extension; package.json's `exports` map points at these names.
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: { banner: header, resolve: ['@loyalty/openapi'] },
  banner: { js: header },
  tsconfig: 'tsconfig.build.json',
  // Runs in Node 22+, browsers and edge runtimes: no Node built-ins.
  platform: 'neutral',
  target: 'es2022',
  // openapi-fetch stays an import (it is a dependency), everything else is bundled.
  external: ['openapi-fetch'],
  clean: true,
  // Source maps would point at sources that are not published.
  sourcemap: false,
  splitting: false,
  treeshake: true,
});
