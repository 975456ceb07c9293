// npm run test:infra  (npm test runs these too)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { transpileWorkspace, withDependencies } from './transpile.mjs';
import { ROOT, workspaces } from './workspaces.mjs';

/** A workspace of its own: the repo's base options, a `tsconfig.build.json` like the workspaces', and `files`. */
function workspace(files) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-transpile-'));
  writeFileSync(
    path.join(dir, 'tsconfig.build.json'),
    JSON.stringify({
      extends: path.join(ROOT, 'packages/tsconfig/base.json'),
      compilerOptions: { noEmit: false, rootDir: 'src', outDir: 'dist', types: [] },
      include: ['src'],
      exclude: ['src/**/*.test.ts'],
    }),
  );
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, 'src', name)), { recursive: true });
    writeFileSync(path.join(dir, 'src', name), text);
  }
  return dir;
}

const listing = (dir) => readdirSync(dir, { recursive: true }).map(String).sort();

describe('transpileWorkspace', () => {
  const made = [];
  afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('writes what tsc writes for the same tsconfig.build.json, JavaScript and source maps, no declarations', () => {
    const files = {
      'index.ts': "import { double, type Doubled } from './lib/math';\nexport { double };\nexport const four: Doubled = double(2);\n",
      'lib/math.ts': 'export type Doubled = number;\nexport enum Kind { A = 1 }\nexport function double(n: number): Doubled {\n  return n * 2 * Kind.A;\n}\n',
      'lib/math.test.ts': 'throw new Error("a test is never built");\n',
    };
    const ours = workspace(files);
    const theirs = workspace(files);
    made.push(ours, theirs);

    assert.equal(transpileWorkspace(ours), 2);
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--declaration', 'false'], { cwd: theirs, encoding: 'utf8' });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);

    const out = path.join(ours, 'dist');
    assert.deepEqual(listing(out), listing(path.join(theirs, 'dist')));
    // As JSON: the array literal and readdirSync's come from different realms under jest's ES module loader.
    assert.equal(JSON.stringify(listing(out)), JSON.stringify(['index.js', 'index.js.map', 'lib', 'lib/math.js', 'lib/math.js.map']));
    for (const file of listing(out).filter((name) => name.includes('.js'))) {
      assert.equal(readFileSync(path.join(out, file), 'utf8'), readFileSync(path.join(theirs, 'dist', file), 'utf8'), file);
    }
  });

  it('refuses a file that does not parse, naming it', () => {
    const dir = workspace({ 'broken.ts': 'export const = 1;\n' });
    made.push(dir);
    assert.throws(() => transpileWorkspace(dir), /broken\.ts: /);
  });
});

describe('withDependencies', () => {
  it('takes the run-time dependencies of an app, all the way down, and not its test-only ones', () => {
    const names = withDependencies(['@hashwatch/gateway']).map((ws) => ws.name);
    assert.ok(names.includes('@hashwatch/gateway'));
    assert.ok(names.includes('@hashwatch/db'));
    assert.ok(!names.includes('@hashwatch/testing'));
    assert.ok(!names.includes('@hashwatch/e2e'));
    assert.ok(names.every((name) => workspaces().some((ws) => ws.name === name)));
  });
});
