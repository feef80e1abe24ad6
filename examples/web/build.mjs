// Bundles the web example with esbuild, in memory, and measures what the SDK
// adds to a page. Used by `npm run example:web` (serve.mjs) and by
// `npm run test:browser`. Paths come from `root` (the repository), not from
// this file's location, so that jest can load it too.
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The SDK's budget in a page: its minified code and openapi-fetch's, gzipped. */
export const sdkGzipBudgetBytes = 8000;

/**
 * What a partner's bundler would do for a browser: one minified ES module.
 * The example's tsconfig, for every file: the repository's root tsconfig maps
 * `@loyalty/sdk` to the SDK's sources, and a partner gets its build.
 */
function browserBuild(root) {
  const tsconfig = join(root, 'examples/web/tsconfig.json');
  return { bundle: true, minify: true, format: 'esm', target: 'es2022', platform: 'browser', write: false, legalComments: 'none', tsconfig };
}

/**
 * The whole SDK as a page would carry it at most (every export kept, so no
 * tree shaking helps), resolved like a partner's import of `@loyalty/sdk`:
 * through its package.json to the committed build in sdk/dist.
 */
export async function measureSdk(root) {
  const result = await build({
    ...browserBuild(root),
    stdin: { contents: "export * from '@loyalty/sdk';", resolveDir: root, loader: 'js' },
    metafile: true,
  });
  const code = result.outputFiles[0].contents;
  const inputs = Object.keys(result.metafile.inputs);
  return { minifiedBytes: code.byteLength, gzipBytes: gzipSync(code, { level: 9 }).byteLength, inputs };
}

/**
 * The example page: `index.html` and `app.js` (with its source map), as
 * `{ path: { contentType, body } }`. The SDK's size goes into the page's
 * footer, as the build measured it.
 */
export async function buildExample(root) {
  const sdk = await measureSdk(root);
  const exampleDir = join(root, 'examples/web');
  const result = await build({
    ...browserBuild(root),
    entryPoints: [join(exampleDir, 'src/main.ts')],
    outfile: join(exampleDir, 'dist/app.js'),
    sourcemap: 'linked',
    metafile: true,
    define: { __SDK_SIZE__: JSON.stringify({ minifiedBytes: sdk.minifiedBytes, gzipBytes: sdk.gzipBytes }) },
  });
  const files = {
    '/index.html': { contentType: 'text/html; charset=utf-8', body: await readFile(join(exampleDir, 'index.html')) },
  };
  for (const output of result.outputFiles) {
    const name = `/${output.path.slice(output.path.lastIndexOf('/') + 1)}`;
    files[name] = { contentType: name.endsWith('.map') ? 'application/json' : 'text/javascript; charset=utf-8', body: Buffer.from(output.contents) };
  }
  const app = files['/app.js'].body;
  const inputs = Object.keys(result.metafile.inputs);
  return { files, sdk, page: { minifiedBytes: app.byteLength, gzipBytes: gzipSync(app, { level: 9 }).byteLength, inputs } };
}

/** One line for people: what the SDK and the page weigh. */
export function describeSizes({ sdk, page }) {
  const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
  return (
    `SDK (@loyalty/sdk with openapi-fetch): ${kB(sdk.minifiedBytes)} minified, ${kB(sdk.gzipBytes)} gzipped ` +
    `(budget ${kB(sdkGzipBudgetBytes)}); the example's app.js: ${kB(page.minifiedBytes)} minified, ${kB(page.gzipBytes)} gzipped`
  );
}
