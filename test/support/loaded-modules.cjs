// Preloaded into a server process by a test (`node --require` this file):
// when the process exits, writes one line on stderr, `LOADED-MODULES <json>`,
// saying which OpenTelemetry modules it loaded and whether any part of the
// OpenTelemetry API was registered (a tracer provider, a context manager, a
// propagator or a diagnostic logger all go into the API's one global).
'use strict';
const { writeSync } = require('node:fs');

process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((file) => /[\\/](@opentelemetry|require-in-the-middle|import-in-the-middle)[\\/]|[\\/]server[\\/](src|dist)[\\/]otel[\\/]/.test(file));
  const apiGlobal = globalThis[Symbol.for('opentelemetry.js.api.1')];
  const report = { loaded, apiRegistered: apiGlobal === undefined ? [] : Object.keys(apiGlobal).filter((key) => key !== 'version') };
  writeSync(2, `LOADED-MODULES ${JSON.stringify(report)}\n`);
});
