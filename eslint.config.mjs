import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

/** SQL lives in store modules (README, Layout): routes, activities and the CLI call what a store names. */
const SQL_IN_STORES = {
  selector:
    "CallExpression[callee.property.name=/^(query|getRepository|createQueryBuilder)$/], CallExpression[callee.name='preparedQuery']",
  message: 'SQL lives in a store module (store.ts or *-store.ts): call a function it exports',
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', '.tools/', 'coverage/', 'jest.config.js'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Type-checked rules for promise safety only (docs/testing.md): the rest of recommendedTypeChecked flags `any`
    // from JSON and SQL rows by the hundred and finds no defect.
    files: ['{src,workflows,activities,test,bench}/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
    },
  },
  {
    // SQL lives in store modules (README, Layout): routes, activities and the CLI call what a store names.
    files: ['src/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts'],
    ignores: ['src/**/store.ts', 'src/**/*-store.ts', 'src/db/**'],
    rules: {
      'no-restricted-syntax': ['error', SQL_IN_STORES],
    },
  },
  {
    // A store renames columns in its SQL (`chain_id AS "chainId"`), so the rows it types are camelCase.
    files: ['src/**/store.ts', 'src/**/*-store.ts'],
    rules: {
      '@typescript-eslint/naming-convention': [
        'error',
        { selector: 'typeProperty', format: ['camelCase'], filter: { regex: '^[A-Z]|[^A-Za-z0-9_]', match: false } },
      ],
    },
  },
  {
    // A route handler parses, calls the domain and maps to the wire: the domain function opens any transaction.
    files: ['src/**/*routes.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='transaction']",
          message: 'open the transaction in a domain function the handler calls',
        },
        // one rule's options replace another's for the same files: the SQL rule holds here too
        SQL_IN_STORES,
      ],
    },
  },
  {
    // TypeORM serves the pool, transactions and migrations, all in src/db; everything else sees its Db and Tx.
    files: ['src/**/*.ts', 'activities/**/*.ts'],
    ignores: ['src/db/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'typeorm', message: 'take Db or Tx from src/db/types.ts' }],
          patterns: [{ group: ['typeorm/*'], message: 'take Db or Tx from src/db/types.ts' }],
        },
      ],
    },
  },
  {
    // Workflow code is replayed deterministically inside Temporal's sandbox: no Node built-ins, no I/O, no clocks
    // or randomness outside the SDK (the same rule Temporal's samples use).
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
          // The activities' types only, and nothing of the domain: its values (DB, viem, config) must never enter the
          // workflow bundle, and what a workflow shares with the domain lives in workflows/contracts/ (.dependency-cruiser.cjs).
          patterns: [
            { group: ['**/src', '**/src/**'], message: 'import the workflow contract (workflows/contracts/) instead' },
            { group: ['**/activities', '**/activities/*'], allowTypeImports: true },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'fetch', 'process'],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'take time from timers (sleep/condition) or activity results' },
        { object: 'Math', property: 'random', message: 'use wf.uuid4() or deterministic input' },
      ],
    },
  },
);
