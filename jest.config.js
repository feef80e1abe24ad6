// One jest config for the whole repo (npm workspaces share it).
// Pact reads this from the real process environment, not from a setup file.
process.env.PACT_DO_NOT_TRACK = 'true';
// A developer's OpenTelemetry settings would turn tracing on in every server
// a test starts (server/src/tracing.ts): tests set their own (test/integration/tracing.test.ts).
for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name];

// ESM-only packages that jest must transform to CommonJS: Pact's proxy agents
// (also when nested under @pact-foundation/pact), @readme/openapi-parser and
// p-timeout (the server's one deadline for a promise).
const esmPackages = [
  'https-proxy-agent',
  'agent-base',
  'proxy-agent-negotiate',
  '@readme',
  '@apidevtools',
  'p-timeout',
].join('|');

const transform = {
  '^.+\\.(t|j|mj)sx?$': [
    '@swc/jest',
    {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    },
  ],
};

const base = {
  transform,
  transformIgnorePatterns: [`/node_modules/(?!(.*/)?(${esmPackages})/)`],
  moduleNameMapper: { '^@loyalty/sdk$': '<rootDir>/sdk/src/index.ts' },
  testEnvironment: 'node',
};

module.exports = {
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/{server,sdk,test,examples,bench}/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.pact\\.test\\.ts$', '\\.provider\\.test\\.ts$', '\\.browser\\.test\\.ts$'],
    },
    {
      // `npm run test:browser`: headless Chromium, outside `npm test`.
      ...base,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.browser.test.ts'],
    },
    {
      ...base,
      displayName: 'pact-consumer',
      testMatch: ['<rootDir>/contracts/**/*.pact.test.ts'],
    },
    {
      ...base,
      displayName: 'pact-provider',
      testMatch: ['<rootDir>/contracts/**/*.provider.test.ts'],
    },
  ],
};
