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
      'no-restricted-imports': ['error', { paths: [...builtinModules, ...builtinModules.map((m) => `node:${m}`)], patterns: ['../activities/*', '../src/**/!(types)'] }],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'fetch', 'process'],
      'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'use workflow time (Date in the sandbox is deterministic) via wf APIs' }, { object: 'Math', property: 'random', message: 'use wf.uuid4() or deterministic input' }],
    },
  },
);
