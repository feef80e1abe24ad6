// @ts-check
/*
 * `npm run lint` (part of `npm test`): typescript-eslint's
 * recommended-type-checked rules on every TypeScript file of the repository,
 * its recommended rules (no type information) on the JavaScript ones, each
 * finding an error. The departures from those sets are below, each with its
 * reason; a single deliberate exception in code is an
 * `eslint-disable-next-line <rule> -- <why>` comment on its line.
 */
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Test code: jest tests, test support (in server/src and beside the other tests), contracts, the SDK's tests. */
const testFiles = ['**/*.test.ts', '**/test-support/**', 'test/**', 'contracts/**', 'sdk/test/**'];

export default defineConfig(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'openapi/schema.d.ts', 'test/browser/output/**'],
  },
  {
    files: ['**/*.ts', '**/*.mts', '**/*.cts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        // Each file with the tsconfig.json that includes it; the SDK's bundler config is in none.
        projectService: { allowDefaultProject: ['sdk/tsup.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Unused variables and imports are errors. A name is left unused on
      // purpose only as a parameter a signature requires (`_event`) or a
      // field taken out of an object before its rest (`{ a: _a, ...rest }`).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Off: the store port's methods return promises, and the in-process
      // adapter and the tests' fakes keep that contract with `async` bodies
      // that have nothing to await (an `async` function also turns a throw
      // into the rejection its callers handle).
      '@typescript-eslint/require-await': 'off',
      // Passing on what was received keeps the original error: an abort
      // signal's `reason` (typed `any` by the DOM), a failure handed over as
      // `unknown`. The SDK's `AttemptFailure` is its transport's internal
      // verdict, thrown and caught within it, never seen by a caller.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      '@typescript-eslint/only-throw-error': [
        'error',
        {
          allowThrowingAny: true,
          allowThrowingUnknown: true,
          allow: [{ from: 'file', name: 'AttemptFailure', path: 'sdk/src/transport/attempt.ts' }],
        },
      ],
    },
  },
  {
    files: testFiles,
    rules: {
      // Off in tests only: a test reads what the server answered (fetch's
      // `json()`, `JSON.parse`, a document read back from MongoDB, the spec
      // as parsed YAML) as `any`, and says so, and asserts its shape, which
      // a cast to the expected type would only pretend to know; jest's
      // asymmetric matchers (`expect.any(String)`) are typed `any` too.
      // Production code keeps these rules.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // CommonJS files load modules with `require`: that is what they are.
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
