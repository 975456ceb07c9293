import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testTiers } from './test-tiers.mjs';

describe('testTiers: which test files `npm run test:quick` may run without services', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hw-tiers-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (rel, text) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  write('apps/api/jest.config.js', '');
  write('apps/api/src/pure.test.ts', "import { parse } from './parse';\n");
  write('apps/api/src/parse.ts', "import { createDatabase } from '@hashwatch/db';\n");
  write('apps/api/src/with-env.test.ts', "import { useTestEnvironment } from '@hashwatch/testing';\n");
  write('apps/api/src/via-helper.test.ts', "import { harness } from './test-support/harness';\n");
  write('apps/api/src/test-support/harness.ts', "export { deeper } from './deeper';\n");
  write('apps/api/src/test-support/deeper.ts', 'const redis = new Redis(process.env.REDIS_URL);\n');
  write('apps/api/src/fixtures.test.ts', "import { xsim } from '@hashwatch/fake/testing';\n");
  write('packages/fake/jest.config.js', '');
  write('packages/fake/src/testing/index.ts', "export const pool = new pg.Pool();\n");
  write('apps/web/src/app.test.ts', "import { createTestDatabase } from '@hashwatch/testing';\n");

  it('reads the test file and the helpers it reaches, not the product code it imports', () => {
    const tiers = testTiers(root).map(({ rel, unit, service }) => ({
      rel,
      unit: unit.map((file) => path.relative(root, file)),
      service: service.map((file) => path.relative(root, file)),
    }));
    assert.deepEqual(tiers, [
      { rel: 'apps/api', unit: ['apps/api/src/pure.test.ts'], service: ['apps/api/src/fixtures.test.ts', 'apps/api/src/via-helper.test.ts', 'apps/api/src/with-env.test.ts'] },
      { rel: 'packages/fake', unit: [], service: [] },
    ]);
  });
});
