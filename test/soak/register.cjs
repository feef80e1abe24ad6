// Lets plain `node` run the TypeScript sources (server/src, test/...) without a
// build: `node -r ./test/soak/register.cjs file.ts`. It compiles each .ts file
// with @swc/core (a devDependency; the same compiler jest uses) to CommonJS on
// require, with inline source maps so stack traces point at the .ts lines.
'use strict';
const Module = require('node:module');
const fs = require('node:fs');
const { transformSync } = require('@swc/core');

process.setSourceMapsEnabled?.(true);

Module._extensions['.ts'] = function compileTypeScript(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = transformSync(source, {
    filename,
    sourceMaps: 'inline',
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
