// The lint steps `npm run lint` relies on to hold the workspace boundaries, each run on a small repository of
// its own that breaks the rule it is meant to catch.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Linter } from 'eslint';
import { dependencyProblems } from './lint/check-dependencies.mjs';
import { importCycles } from './lint/check-import-cycles.mjs';
import { workspaceBoundaries } from './lint/workspace-boundaries.mjs';

/** A repository in a temporary folder: `files` maps each path to its text (objects are written as JSON). */
function repository(files) {
  const root = mkdtempSync(path.join(tmpdir(), 'hw-lint-'));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return root;
}

const roots = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('workspace-boundaries', () => {
  const root = repository({
    'package.json': { workspaces: ['apps/*', 'packages/*'] },
    'apps/api/package.json': { name: '@hw/api' },
    'apps/worker/package.json': { name: '@hw/worker' },
    'packages/core/package.json': { name: '@hw/core', exports: { '.': './dist/index.js', './testing': './dist/testing/index.js' } },
  });
  roots.push(root);
  const linter = new Linter({ cwd: root });
  const config = [
    {
      files: ['**/*.js'],
      plugins: { hw: { rules: { 'workspace-boundaries': workspaceBoundaries(root) } } },
      rules: { 'hw/workspace-boundaries': 'error' },
    },
  ];
  const messages = (file, code) => linter.verify(code, config, path.join(root, file)).map((message) => message.message);

  it('lets a workspace import a package by name, its exported subpaths, and its own files', () => {
    assert.deepEqual(messages('apps/api/src/a.js', "import { x } from '@hw/core';\nimport { y } from '@hw/core/testing';\nimport { z } from './z';"), []);
  });

  it('fails an app that imports another app, and a package that imports an app', () => {
    assert.match(messages('apps/api/src/a.js', "import { w } from '@hw/worker';")[0], /an app imports the app @hw\/worker/);
    assert.match(messages('packages/core/src/c.js', "import { w } from '@hw/worker';")[0], /a package imports the app @hw\/worker/);
    assert.match(messages('apps/api/src/a.js', "require('@hw/worker/package.json');")[0], /an app imports the app @hw\/worker/);
    assert.match(messages('packages/core/src/c.js', "require.resolve('@hw/worker/package.json');")[0], /a package imports the app @hw\/worker/);
  });

  it("lets an app locate another app's files through its package.json, which loads none of its code", () => {
    assert.deepEqual(messages('apps/api/src/a.js', "require.resolve('@hw/worker/package.json');"), []);
  });

  it('fails a relative import that leaves its workspace, and one below an entry point', () => {
    assert.match(messages('apps/api/src/a.js', "import { c } from '../../../packages/core/src/c';")[0], /leaves apps\/api/);
    assert.match(messages('apps/api/src/a.js', "import { c } from '@hw/core/src/c';")[0], /reaches below @hw\/core's entry point/);
  });

  it('fails a bench that imports a test fixture', () => {
    assert.match(messages('bench/b.js', "import { f } from '@hw/core/testing';")[0], /is a test fixture/);
    assert.deepEqual(messages('bench/b.js', "import { w } from '@hw/worker';"), []);
  });
});

describe('check-dependencies', () => {
  const base = {
    'package.json': { workspaces: ['packages/*'], devDependencies: { jest: '*' } },
    'packages/core/package.json': { name: '@hw/core', dependencies: { zod: '*' } },
    'packages/core/src/index.ts': "import { z } from 'zod';\nimport { readFileSync } from 'node:fs';\nexport const s = z.string();",
  };

  it('answers nothing when every package.json declares exactly what its files import', () => {
    const root = repository(base);
    roots.push(root);
    assert.deepEqual(dependencyProblems(root), []);
  });

  it('names an import nothing declares and a declared package nothing imports', () => {
    const root = repository({
      ...base,
      'packages/core/package.json': { name: '@hw/core', dependencies: { zod: '*', axios: '*' } },
      'packages/core/src/extra.ts': "import Redis from 'ioredis';\nimport { describe } from 'jest';",
    });
    roots.push(root);
    assert.deepEqual(dependencyProblems(root), [
      'packages/core/package.json: imports ioredis but does not declare it',
      'packages/core/package.json: declares axios but nothing in the workspace imports it',
    ]);
  });

  it("counts vitest's test environment, named in a vite config, as used", () => {
    const root = repository({
      ...base,
      'packages/core/package.json': { name: '@hw/core', dependencies: { zod: '*' }, devDependencies: { jsdom: '*', happy: '*' } },
      'packages/core/vite.config.ts': "export default { test: { environment: 'jsdom' } };",
      'packages/core/src/other.ts': "export const settings = { environment: 'happy' };",
    });
    roots.push(root);
    assert.deepEqual(dependencyProblems(root), ['packages/core/package.json: declares happy but nothing in the workspace imports it']);
  });
});

describe('check-import-cycles', () => {
  const cycles = (files) => {
    const root = repository(files);
    roots.push(root);
    return importCycles(root);
  };

  it('answers nothing when imports flow one way, shared types sitting a floor down', () => {
    assert.deepEqual(
      cycles({
        'apps/api/src/server.ts': "import { page } from './page';\nimport type { Alert } from './alert';",
        'apps/api/src/page.ts': "import type { Alert } from './alert';\nexport const page = (alerts: Alert[]) => alerts.length;",
        'apps/api/src/alert.ts': 'export interface Alert { id: string }',
        'bench/run.ts': "import { model } from './model';",
        'bench/model.ts': 'export const model = 1;',
      }),
      [],
    );
  });

  it('names a circle closed by a type-only import', () => {
    assert.deepEqual(
      cycles({
        'apps/api/src/server.ts': "import { page } from './page';\nexport interface Alert { id: string }",
        'apps/api/src/page.ts': "import type { Alert } from './server';\nexport const page = (alerts: Alert[]) => alerts.length;",
      }),
      ['apps/api/src/page.ts → apps/api/src/server.ts → apps/api/src/page.ts'],
    );
  });

  it('follows import() types, `.js` specifiers, index files and multi-line imports, in packages, e2e and bench', () => {
    assert.deepEqual(
      cycles({
        'packages/core/src/deps.ts': "export interface Deps { options?: import('./options/index').Options }",
        'packages/core/src/options/index.ts': "import type {\n  Deps,\n} from '../deps.js';\nexport interface Options { deps: Deps }",
        'e2e/src/a.ts': "export * from './b';",
        'e2e/src/b.ts': "import './a';",
        'bench/model.ts': "import type { Result } from './scenario';",
        'bench/scenario.ts': "import { model } from './model';",
      }),
      [
        'bench/model.ts → bench/scenario.ts → bench/model.ts',
        'e2e/src/a.ts → e2e/src/b.ts → e2e/src/a.ts',
        'packages/core/src/deps.ts → packages/core/src/options/index.ts → packages/core/src/deps.ts',
      ],
    );
  });

  it('names every file caught in a larger circle, and leaves node_modules and generated code alone', () => {
    assert.deepEqual(
      cycles({
        'apps/api/src/a.ts': "import { b } from './b';\nimport { c } from './c';",
        'apps/api/src/b.ts': "import { a } from './a';",
        'apps/api/src/c.ts': "import { a } from './a';",
        'apps/api/src/generated/x.ts': "import { y } from './y';",
        'apps/api/src/generated/y.ts': "import { x } from './x';",
        'packages/core/src/node_modules/dep/x.ts': "import { y } from './y';",
        'packages/core/src/node_modules/dep/y.ts': "import { x } from './x';",
      }),
      ['apps/api/src/a.ts → apps/api/src/b.ts → apps/api/src/a.ts (also caught in it: apps/api/src/c.ts)'],
    );
  });
});
