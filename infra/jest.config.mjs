// jest for infra/'s own tests (infra/**/*.test.mjs): `npm run test:infra`, and `npm test` runs them in its pool.
// They stay native ESM, as the scripts they test are: jest loads them as ES modules when Node runs it with
// --experimental-vm-modules (the test:infra script does), so nothing is transformed and there is no babel.
export default {
  rootDir: import.meta.dirname,
  displayName: 'infra',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/**/*.test.mjs'],
  // Native ESM: no transform (babel-jest is jest's default for .js).
  transform: {},
  // The slowest of these render manifests with kubectl, run tsx or start PgBouncer, PostgreSQL or Redis of their own.
  testTimeout: 120_000,
  maxWorkers: 2,
};
