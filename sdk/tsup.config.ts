import { defineConfig } from 'tsup';

// ESM (index.mjs, index.d.mts) and CommonJS (index.js, index.d.ts) from one
// source. The package has no "type" field, so `.js` is CommonJS and ESM gets
// the `.mjs` extension; package.json's `exports` map points at these names.
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  tsconfig: 'tsconfig.build.json',
  // Runs in Node 20+, browsers and edge runtimes: no Node built-ins.
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
