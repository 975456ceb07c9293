// `npm run test:quick`'s jest: one run over every jest workspace as a project, unit test files only (infra/test-tiers.mjs
// files the rest as needing PostgreSQL or Redis), with no global set-up, so nothing is created and no service is needed.
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { testTiers } from './test-tiers.mjs';
import { ROOT } from './workspaces.mjs';

const require = createRequire(import.meta.url);
const escape = (file) => file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const PACKAGE_SOURCES = readdirSync(path.join(ROOT, 'packages'))
  .map((name) => path.join(ROOT, 'packages', name, 'src'))
  .filter((dir) => existsSync(dir));

export default function quickConfig() {
  const projects = testTiers(ROOT)
    .filter((tier) => tier.unit.length > 0)
    .map((tier) => {
      // Run-wide settings (maxWorkers, testTimeout) are set once below: jest refuses them per project.
      const { maxWorkers: _maxWorkers, testTimeout: _testTimeout, ...base } = require(path.join(ROOT, tier.rel, 'jest.config.js'));
      return {
        ...base,
        displayName: tier.rel,
        globalSetup: undefined,
        globalTeardown: undefined,
        // The packages' sources are roots too, so --findRelatedTests follows a workspace import (@hashwatch/x-api)
        // into the package it names; testMatch still limits the tests to this workspace's own.
        roots: ['<rootDir>/src', ...PACKAGE_SOURCES.filter((dir) => dir !== path.join(ROOT, tier.rel, 'src'))],
        testPathIgnorePatterns: ['/node_modules/', ...tier.service.map((file) => `^${escape(file)}$`)],
      };
    });
  // testTimeout is a run-wide setting in jest, so the workspaces' one is set here too.
  return { projects, maxWorkers: 2, testTimeout: require(path.join(ROOT, 'jest.base.js'))(ROOT).testTimeout };
}
