// The JSON reports each workspace's jest writes during `npm test`, read back into the rows of its summary.
// A workspace that has no tests, or did not report, counts as a failure.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readJson } from './workspaces.mjs';

/** Where each workspace's jest writes its JSON report, relative to the workspace (.turbo/ is gitignored). */
export const JEST_REPORT = '.turbo/jest-report.json';

/** How many test files jest finds in the workspace, or undefined when it cannot tell. */
function countTests(ws) {
  const result = spawnSync('npx', ['--no-install', 'jest', '--listTests', '--json'], { cwd: ws.dir, encoding: 'utf8', timeout: 60_000 });
  try {
    return JSON.parse(result.stdout).length;
  } catch {
    return undefined;
  }
}

/** One workspace's row from its jest report, with the tests it passed and the failures it counts for. */
function reportRow(ws, report) {
  const broken = report.numRuntimeErrorTestSuites ?? 0;
  const failed = report.numFailedTests + broken;
  if (report.numTotalTests === 0 && failed === 0) {
    return { row: { ws, ok: false, text: 'ran no tests: every workspace must have tests' }, failed: 1 };
  }
  if (!report.success && failed === 0) {
    const text = `${report.numPassedTests} passed, but jest failed the run (open handles, snapshots or coverage)`;
    return { row: { ws, ok: false, text }, failed: 1 };
  }
  const parts = [`${report.numPassedTests} passed`];
  if (report.numFailedTests) parts.push(`${report.numFailedTests} failed`);
  if (broken) parts.push(`${broken} test file(s) failed to run`);
  if (report.numPendingTests) parts.push(`${report.numPendingTests} skipped`);
  return { row: { ws, ok: failed === 0, text: parts.join(', ') }, failed };
}

/**
 * The rows and totals of the workspaces that have a `test` script, from the reports their jest wrote (`report`,
 * relative to each workspace); `label` tells a second run of the same workspaces apart in the rows.
 */
export function summarizeReports(testable, { report: reportPath = JEST_REPORT, label = '' } = {}) {
  const rows = [];
  let passed = 0;
  let failed = 0;
  for (const workspace of testable) {
    const ws = label ? { ...workspace, name: `${workspace.name} ${label}` } : workspace;
    const file = path.join(ws.dir, reportPath);
    if (!existsSync(file)) {
      failed += 1;
      const text = countTests(ws) === 0
        ? 'has no tests: every workspace must have tests'
        : 'jest did not finish, no report (see its output above)';
      rows.push({ ws, ok: false, text });
      continue;
    }
    const report = readJson(file);
    const result = reportRow(ws, report);
    rows.push(result.row);
    passed += report.numPassedTests;
    failed += result.failed;
  }
  return { rows, passed, failed };
}
