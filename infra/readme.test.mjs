// npm run test:infra -- infra/readme.test.mjs  (npm test runs it)
// The README is the front door (CONTRACT 1, STYLE 16): short, opening with the two commands, and linking the README of
// every app and package so each concern is one click away.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

describe('README.md', () => {
  it('stays within 200 lines', () => {
    assert.ok(readme.split('\n').length <= 200, `README.md has ${readme.split('\n').length} lines`);
  });

  it('opens with a quick start of exactly two commands, npm start and npm test', () => {
    const firstSection = readme.slice(readme.indexOf('\n## '), readme.indexOf('\n## ', readme.indexOf('\n## ') + 1));
    assert.match(firstSection, /^\n## Quick start\n/);
    const block = /```sh\n([\s\S]*?)```/.exec(firstSection);
    assert.ok(block, 'a shell block');
    const commands = block[1].split('\n').filter(Boolean).map((line) => line.replace(/\s+#.*$/, '').trim());
    assert.deepEqual(commands, ['npm start', 'npm test']);
  });

  it('links the README of every app and package', () => {
    for (const group of ['apps', 'packages']) {
      for (const name of readdirSync(path.join(ROOT, group))) {
        if (!existsSync(path.join(ROOT, group, name, 'package.json')) || name === 'tsconfig') continue;
        const target = `${group}/${name}/README.md`;
        assert.ok(existsSync(path.join(ROOT, target)), `${target} exists`);
        assert.ok(readme.includes(`](${target})`), `README.md links ${target}`);
      }
    }
  });
});
