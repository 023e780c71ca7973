/** Integration suites share one Temporal dev server, one Postgres and one worker (test/support/global-setup.ts). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // test/cluster kills Temporal's processes: only on the cluster `npm run test:cluster` starts, which sets both.
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(process.env.TEMPORAL_ADDRESS && process.env.TEMPORAL_CLUSTER_DIR ? [] : ['<rootDir>/test/cluster/']),
  ],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    // The legacy client ships ESM with extension-less imports; jest's resolver tolerates those once it is CJS.
    'node_modules/rhinestone-sdk-v0/.+\\.js$': [
      'ts-jest',
      { tsconfig: { allowJs: true, module: 'commonjs', isolatedModules: true } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!rhinestone-sdk-v0/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 1,
};
