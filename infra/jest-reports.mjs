// The JSON reports each workspace's jest (and infra/'s own) writes during `npm test`, read back into the rows of
// its summary. A workspace that has no tests, or did not report, counts as a failure.
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

// jest's colour codes in an error message: ESC [ … m.
const ANSI_COLOURS = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

// Failed tests named under a row, at most this many (the rest counted), so a red run says what to look at.
const MAX_NAMED_FAILURES = 10;

// Lines of a failed test's first error shown under its name: the matcher's message and where in the test file.
const MAX_DETAIL_LINES = 4;

/**
 * The first lines of a failed test's first error (before its stack) and the stack's first frame in the test file
 * itself, ANSI colours removed: what a CI log must show when only the summary survives.
 */
function failureDetail(result, testFile) {
  const lines = String(result.failureMessages?.[0] ?? '').replace(ANSI_COLOURS, '').split('\n').map((line) => line.trim());
  const stackStart = lines.findIndex((line) => line.startsWith('at '));
  const message = (stackStart === -1 ? lines : lines.slice(0, stackStart)).filter((line) => line.length > 0).slice(0, MAX_DETAIL_LINES);
  const inTest = lines.find((line) => line.startsWith('at ') && line.includes(testFile));
  return [...message.map((line) => line.slice(0, 200)), ...(inTest ? [inTest] : [])];
}

/**
 * The failures of a report, each `file › test name` (or `file: first line of its error` for a file that failed to
 * run), with paths relative to the workspace; a failed test's entry goes on, a line each, with failureDetail.
 */
export function failureNames(ws, report) {
  const names = [];
  for (const file of report.testResults ?? []) {
    const where = path.relative(ws.dir, file.name ?? '') || String(file.name);
    const failedAssertions = (file.assertionResults ?? []).filter((result) => result.status === 'failed');
    for (const result of failedAssertions) {
      names.push([`${where} › ${result.fullName ?? result.title}`, ...failureDetail(result, file.name ?? where)].join('\n'));
    }
    if (failedAssertions.length === 0 && file.status === 'failed') {
      const firstLine = String(file.message ?? '').split('\n').map((line) => line.trim()).find((line) => line.length > 0) ?? 'failed to run';
      names.push(`${where}: ${firstLine.replace(ANSI_COLOURS, '').slice(0, 200)}`);
    }
  }
  if (names.length <= MAX_NAMED_FAILURES) return names;
  return [...names.slice(0, MAX_NAMED_FAILURES), `… and ${names.length - MAX_NAMED_FAILURES} more`];
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
  return { row: { ws, ok: failed === 0, text: parts.join(', '), failures: failed > 0 ? failureNames(ws, report) : [] }, failed };
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

/**
 * The `count` test files that took longest across the given reports (`{ ws, report }`), slowest first, each
 * `{ file, label, ms }` with the file relative to the repository root and the row's label (a cluster pass says so).
 */
export function slowestFiles(entries, { root, count = 10 } = {}) {
  const files = [];
  for (const { ws, report } of entries) {
    for (const file of report.testResults ?? []) {
      const ms = Number(file.endTime) - Number(file.startTime);
      if (!Number.isFinite(ms)) continue;
      files.push({ file: path.relative(root ?? ws.dir, file.name ?? ''), label: ws.label ?? '', ms });
    }
  }
  return files.sort((a, b) => b.ms - a.ms).slice(0, count);
}

/** The reports of `testable` that exist at `report` (relative to each workspace), for slowestFiles. */
export function readReports(testable, { report: reportPath = JEST_REPORT, label = '' } = {}) {
  const entries = [];
  for (const ws of testable) {
    const file = path.join(ws.dir, reportPath);
    if (existsSync(file)) entries.push({ ws: { ...ws, label }, report: readJson(file) });
  }
  return entries;
}

/**
 * One report from the reports of several jest runs of one workspace (`files`: report paths; a missing one is a run
 * that crashed before writing it, counted as a test file that failed to run, named by `names[i]`).
 */
export function mergeReports(files, names = files) {
  const merged = { numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, numTotalTests: 0, numRuntimeErrorTestSuites: 0, success: true, testResults: [] };
  files.forEach((file, index) => {
    if (!existsSync(file)) {
      merged.numRuntimeErrorTestSuites += 1;
      merged.success = false;
      merged.testResults.push({ name: names[index], status: 'failed', message: 'jest did not finish: no report', assertionResults: [] });
      return;
    }
    const report = readJson(file);
    for (const key of ['numPassedTests', 'numFailedTests', 'numPendingTests', 'numTotalTests', 'numRuntimeErrorTestSuites']) merged[key] += report[key] ?? 0;
    merged.success &&= Boolean(report.success);
    merged.testResults.push(...(report.testResults ?? []));
  });
  return merged;
}
