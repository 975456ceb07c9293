import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureNames, slowestFiles } from './jest-reports.mjs';

describe('failureNames', () => {
  const ws = { dir: '/repo/e2e' };

  it('names each failed test by file and full name, and a file that failed to run by its first error line', () => {
    const report = {
      testResults: [
        { name: '/repo/e2e/src/a.test.ts', status: 'failed', assertionResults: [{ status: 'passed', fullName: 'a works' }, { status: 'failed', fullName: 'a › recovers in time' }] },
        { name: '/repo/e2e/src/b.test.ts', status: 'failed', message: '\n  \u001b[1mCannot find module x\u001b[22m\n  at y', assertionResults: [] },
        { name: '/repo/e2e/src/c.test.ts', status: 'passed', assertionResults: [{ status: 'passed', fullName: 'c' }] },
      ],
    };
    assert.deepEqual(failureNames(ws, report), ['src/a.test.ts › a › recovers in time', 'src/b.test.ts: Cannot find module x']);
  });

  it('names ten failures and counts the rest', () => {
    const assertionResults = Array.from({ length: 13 }, (_, i) => ({ status: 'failed', fullName: `t${i}` }));
    const names = failureNames(ws, { testResults: [{ name: '/repo/e2e/src/many.test.ts', status: 'failed', assertionResults }] });
    assert.equal(names.length, 11);
    assert.equal(names.at(-1), '… and 3 more');
  });
});

describe('slowestFiles', () => {
  it('lists the slowest files of every report, slowest first, relative to the root and labelled by their pass', () => {
    const file = (name, startTime, endTime) => ({ name: `/repo/${name}`, startTime, endTime });
    const entries = [
      { ws: { dir: '/repo/e2e', label: '' }, report: { testResults: [file('e2e/src/a.test.ts', 0, 9_000), file('e2e/src/b.test.ts', 0, 1_000)] } },
      { ws: { dir: '/repo/e2e', label: '(redis cluster)' }, report: { testResults: [file('e2e/src/a.test.ts', 5, 20_005), { name: '/repo/e2e/src/c.test.ts' }] } },
    ];
    assert.deepEqual(slowestFiles(entries, { root: '/repo', count: 2 }), [
      { file: 'e2e/src/a.test.ts', label: '(redis cluster)', ms: 20_000 },
      { file: 'e2e/src/a.test.ts', label: '', ms: 9_000 },
    ]);
  });
});
