// The lint steps `npm run lint` relies on to hold the workspace boundaries, each run on a small repository of
// its own that breaks the rule it is meant to catch.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Linter } from 'eslint';
import { dependencyProblems } from './lint/check-dependencies.mjs';
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
after(() => {
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
