// ESLint for the whole repository: `npm run lint`, and `npm test` through test/unit/lint.test.ts.
// TypeScript is linted with type information (typescript-eslint's project service reads
// tsconfig.node.json and tsconfig.web.json), so promise misuse is caught: a floating promise in an
// async HTTP handler, or an async function passed where a void callback is expected.
// The choice of rules and what each left-out rule would have cost: docs/decisions/0019-lint.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: ['node_modules/', '**/node_modules/', 'out/', 'dist/', 'build/', 'test-results/', 'bench/.data/', '.loupe-data/'],
  },
  {
    // A disable comment that no longer silences anything is an error, so none outlives its reason.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Values typed `any` come from JSON.parse, SQLite rows and fetch bodies; each is narrowed
      // with a cast to a declared row or contract type where it is read. The no-unsafe-* family
      // would ask for a runtime check at ~1,500 such reads for no bug it finds that tsc's strict
      // mode and `no-explicit-any` do not already catch at the cast.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Store adapters implement an async port synchronously (SQLite): `async` without `await`
      // there is deliberate, so a synchronous throw still reaches the caller as a rejection.
      '@typescript-eslint/require-await': 'off',
      // Loupe passes plain functions and closures, never `this`-bound class methods; the rule
      // fires on method-shorthand props (`onClose(): void`) that are never bound to anything.
      '@typescript-eslint/unbound-method': 'off',
      // `_name` marks a value destructured away on purpose (e.g. `{ key: _drop, ...rest }`).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Tests and benches read JSON answers of many shapes and assert on them; an `any` there fails
    // the test at run time on the first wrong field, so naming every answer's type buys nothing.
    // Product code (src/) keeps the rule: there an `any` hides a wrong field until a user hits it.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      // Recommended sets it to warn; a stale effect or memo is a bug here, so it fails the run.
      'react-hooks/exhaustive-deps': 'error',
      // Only says React Compiler would skip a component (react-table, react-virtual); Loupe does
      // not build with the compiler, so there is nothing to act on.
      'react-hooks/incompatible-library': 'off',
    },
  },
);
