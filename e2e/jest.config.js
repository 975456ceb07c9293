// Process-level scenarios: each file starts the built apps (apps/*/dist) as OS processes, so they run one file
// at a time (a 2-core machine), with long time-outs, and make their own databases (no shared template).
const base = require('../jest.base.js')(__dirname);

module.exports = {
  ...base,
  globalSetup: undefined,
  globalTeardown: undefined,
  testTimeout: 180_000,
  maxWorkers: 1,
};
