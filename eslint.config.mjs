import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', '.tools/', 'coverage/', 'jest.config.js'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
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
