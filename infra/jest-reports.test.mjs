import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { failureNames, mergeReports, slowestFiles } from './jest-reports.mjs';

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

  it('follows a failed test’s name with its error’s first lines and the line of the test file it failed at', () => {
    const failureMessages = [
      '\u001b[2mexpect(\u001b[22mreceived\u001b[2m).toBeLessThan(\u001b[22mexpected\u001b[2m)\u001b[22m\n\nExpected: < 90\nReceived:   143\n'
        + '    at Object.<anonymous> (/repo/e2e/node_modules/x.js:1:1)\n    at Object.<anonymous> (/repo/e2e/src/a.test.ts:213:31)\n    at run (/repo/x.js:2:2)',
    ];
    const report = { testResults: [{ name: '/repo/e2e/src/a.test.ts', status: 'failed', assertionResults: [{ status: 'failed', fullName: 'a is quick', failureMessages }] }] };
    assert.deepEqual(failureNames(ws, report), [
      'src/a.test.ts › a is quick\nexpect(received).toBeLessThan(expected)\nExpected: < 90\nReceived:   143\nat Object.<anonymous> (/repo/e2e/src/a.test.ts:213:31)',
    ]);
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

describe('mergeReports', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-reports-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('adds the counts of each file run, keeps every result, and counts a run with no report as a file that failed to run', () => {
    const a = path.join(dir, 'a.json');
    const b = path.join(dir, 'b.json');
    writeFileSync(a, JSON.stringify({ numPassedTests: 3, numFailedTests: 0, numTotalTests: 3, success: true, testResults: [{ name: '/e2e/src/a.test.ts' }] }));
    writeFileSync(b, JSON.stringify({ numPassedTests: 1, numFailedTests: 1, numTotalTests: 2, success: false, testResults: [{ name: '/e2e/src/b.test.ts' }] }));
    const merged = mergeReports([a, b, path.join(dir, 'c.json')], ['a', 'b', '/e2e/src/c.test.ts']);
    assert.equal(merged.numPassedTests, 4);
    assert.equal(merged.numFailedTests, 1);
    assert.equal(merged.numTotalTests, 5);
    assert.equal(merged.numRuntimeErrorTestSuites, 1);
    assert.equal(merged.success, false);
    assert.deepEqual(merged.testResults.map((result) => result.name), ['/e2e/src/a.test.ts', '/e2e/src/b.test.ts', '/e2e/src/c.test.ts']);
  });
});
