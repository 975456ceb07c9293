// Shared jest settings: every workspace's jest.config.js spreads this.
// Workspace imports resolve to TypeScript sources, so tests never need a build first.
const path = require('node:path');

/** @param {string} dir the workspace folder */
module.exports = function jestConfig(dir) {
  return {
    rootDir: dir,
    testEnvironment: 'node',
    testMatch: ['<rootDir>/src/**/*.test.ts'],
    transform: {
      '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(dir, 'tsconfig.json'), diagnostics: false }],
    },
    moduleNameMapper: {
      '^@hashwatch/db$': path.join(__dirname, 'packages/db/src/index.ts'),
      '^@hashwatch/([a-z-]+)$': path.join(__dirname, 'packages/$1/src/index.ts'),
      // A package's test fixtures, e.g. @hashwatch/x-simulator/testing.
      '^@hashwatch/([a-z-]+)/testing$': path.join(__dirname, 'packages/$1/src/testing/index.ts'),
    },
    globalSetup: path.join(__dirname, 'packages/testing/src/global-setup.ts'),
    globalTeardown: path.join(__dirname, 'packages/testing/src/global-teardown.ts'),
    testTimeout: 30000,
    maxWorkers: 2,
  };
};
