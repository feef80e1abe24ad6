/*
 * The shape of server/src, checked by `npm run arch:check` (part of `npm test`).
 *
 * Layers, lowest first. A module may import its own layer and lower ones,
 * never a higher one:
 *
 *   domain/  <  store/  <  http/, rate-limit/  <  features/  <  otel/, admin/  <  the rest
 *
 * http/ and rate-limit/ (the rate limit's middleware and counting) share a
 * level, as do otel/ and admin/: they may import each other. Packages and
 * @loyalty/openapi (the spec's generated types) are below every layer.
 *
 * features/ holds one folder per operation, and the operator's loader
 * (features/load/, used by `loyalty-admin load` and SEED_FILE): a feature
 * of the application, above the store it writes through. It runs outside
 * any request, so it imports nothing of http/, rate-limit/ or the other
 * features, and reaches the store through its port only (rule
 * loader-through-the-store-port).
 *
 * "The rest" is the top: the top-level files (app.ts, composition.ts, main.ts,
 * tracing.ts, start-failure.ts, logger.ts, version.ts, ...), the top-level
 * test-support/ and any top-level folder not named above, so a new one is
 * placed above everything until it is given a layer here.
 *
 * config.ts, metrics.ts and caching/ (the one way to bound what a process
 * keeps per key, the read cache, the polled value) are base modules:
 * anything may import them, and they import nothing of server/src but
 * domain/ and one another.
 *
 * Test code:
 * - A `test-support/` folder belongs to the layer of its parent folder
 *   (store/test-support may import store/ and domain/, not features/;
 *   server/src/test-support is top). The layer patterns below cover it.
 * - A `*.test.ts` file is a leaf: nothing imports it (rule no-import-of-tests).
 *   A module nothing imports cannot be on a cycle, and its imports cannot make
 *   a lower layer depend on a higher one, so a test may import any layer.
 * - Production code (neither a test nor under test-support/) imports no test
 *   code.
 *
 * Type-only imports count (tsPreCompilationDeps): a cycle through types is
 * still a cycle for whoever reads the code.
 */

const src = '^server/src/';
const testFile = '\\.test\\.ts$';
const testSupport = '(^|/)test-support/';
const base = `${src}((config|metrics)\\.ts$|caching/)`;

/** Lowest first; `path` matches every module of the layer, its test-support included. */
const layers = [
  { name: 'domain', path: `${src}domain/` },
  { name: 'store', path: `${src}store/` },
  { name: 'http', path: `${src}(http|rate-limit)/` },
  { name: 'features', path: `${src}features/` },
  { name: 'otel-admin', path: `${src}(otel|admin)/` },
  { name: 'top', path: `${src}(?!(domain|store|http|rate-limit|features|otel|admin|caching)/|(config|metrics)\\.ts$)` },
];

/** One rule per layer but the top: it imports nothing of the layers above it. */
const layerRules = layers.slice(0, -1).map((layer, index) => {
  const higher = layers.slice(index + 1);
  return {
    name: `layer-${layer.name}`,
    severity: 'error',
    comment: `${layer.name} imports only its own layer and lower ones, not ${higher.map((l) => l.name).join(', ')}`,
    from: { path: layer.path, pathNot: testFile },
    to: { path: higher.map((l) => l.path) },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No module reaches itself through its imports, type-only imports included',
      from: { path: src },
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An import the check cannot resolve is one it cannot judge',
      from: { path: src },
      to: { couldNotResolve: true },
    },
    ...layerRules,
    {
      name: 'layer-base',
      severity: 'error',
      comment: 'config.ts, metrics.ts and caching/, which every layer may import, import nothing of server/src but domain and one another',
      from: { path: base, pathNot: testFile },
      to: { path: src, pathNot: [`${src}domain/`, base] },
    },
    {
      name: 'no-import-of-tests',
      severity: 'error',
      comment: 'A *.test.ts file is a leaf: nothing imports it',
      from: {},
      to: { path: testFile },
    },
    {
      name: 'production-imports-no-test-code',
      severity: 'error',
      comment: 'Production code (not a test, not under test-support/) imports no test-support, test or contract code',
      from: { path: src, pathNot: [testFile, testSupport] },
      to: { path: [testSupport, testFile, '^test/', '^contracts/'] },
    },
    {
      name: 'loader-through-the-store-port',
      severity: 'error',
      comment:
        'The loader (features/load/) runs outside any request and writes through the store port: it imports no http/, rate-limit/, other feature or store adapter',
      from: { path: `${src}features/load/`, pathNot: [testFile, testSupport] },
      to: { path: `${src}(http/|rate-limit/|features/(?!load/)|store/(memory|mongo)/)` },
    },
    {
      name: 'app-wires-handlers-only',
      severity: 'error',
      comment: "app.ts wires and decides nothing: of features/ it imports the handler modules only (an operation's rules reach it through them)",
      from: { path: `${src}app\\.ts$` },
      to: { path: `${src}features/`, pathNot: '(^|/|-)handler\\.ts$' },
    },
    {
      name: 'domain-without-express-or-mongodb',
      severity: 'error',
      comment: 'Domain code (domain/, features/) imports neither Express nor the MongoDB driver',
      from: { path: `${src}(domain|features)/`, pathNot: [testFile, testSupport] },
      to: { path: '(^|/)node_modules/(@types/)?(express|mongodb)(/|$)' },
    },
  ],
  options: {
    // Packages and the spec's types are leaves here: only server/src's own shape is checked.
    doNotFollow: { path: ['node_modules', '^openapi/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.json'],
    },
  },
};
