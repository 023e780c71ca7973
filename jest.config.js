/**
 * Two projects: unit tests need no service and run without any setup (`npm run test:unit`); the integration suites
 * (everything else under test/) share one Temporal dev server, one Postgres and one worker (test/support/global-setup.ts).
 */
const shared = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    // The legacy client ships ESM with extension-less imports; jest's resolver tolerates those once it is CJS.
    'node_modules/rhinestone-sdk-v0/.+\\.js$': [
      'ts-jest',
      { tsconfig: { allowJs: true, module: 'commonjs', isolatedModules: true } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!rhinestone-sdk-v0/)'],
};

module.exports = {
  // Global options: jest reads them here, not in a project.
  maxWorkers: 3,
  testTimeout: 60000,
  projects: [
    { ...shared, displayName: 'unit', roots: ['<rootDir>/test/unit'] },
    {
      ...shared,
      displayName: 'integration',
      roots: ['<rootDir>/test'],
      // test/cluster kills Temporal's processes: only on the cluster `npm run test:cluster` starts, which sets both.
      testPathIgnorePatterns: [
        '/node_modules/',
        '<rootDir>/test/unit/',
        ...(process.env.TEMPORAL_ADDRESS && process.env.TEMPORAL_CLUSTER_DIR ? [] : ['<rootDir>/test/cluster/']),
      ],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
