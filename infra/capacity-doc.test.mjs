// npm run test:infra -- infra/capacity-doc.test.mjs
// docs/CAPACITY.md's tables are printed by the capacity model (bench/capacity-model.ts) from the units measured in
// bench/: a change to the model, to its measured units or to the doc by hand must not leave the two apart.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

function capacityDoc(flag) {
  return spawnSync('npx', ['--no-install', 'tsx', '--tsconfig', 'bench/tsconfig.json', 'bench/capacity-doc.ts', flag], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('docs/CAPACITY.md', () => {
  // Two runs of the model, each bounded by capacityDoc's own timeout.
  it('holds exactly the tables the capacity model prints', () => {
    const printed = capacityDoc('--markdown');
    assert.equal(printed.status, 0, printed.stderr);
    const doc = readFileSync(path.join(ROOT, 'docs/CAPACITY.md'), 'utf8');
    assert.ok(doc.includes(printed.stdout.trimEnd()), 'docs/CAPACITY.md differs from the model: run bench/capacity-doc.ts --write');
    const checked = capacityDoc('--check');
    assert.equal(checked.status, 0, checked.stderr);
  }, 2 * 120_000 + 10_000);

  it('answers how many replicas of each app 10,000 accounts need', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/CAPACITY.md'), 'utf8');
    for (const app of ['gateway', 'scanner', 'engagement poller', 'notifier']) assert.match(doc, new RegExp(app, 'i'));
    assert.match(doc, /10,000 accounts/);
  });
});
