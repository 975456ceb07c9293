// `npm start`'s build of the TypeScript workspaces: each file of a workspace's `tsconfig.build.json` transpiled on
// its own (TypeScript's transpileModule, the compiler's own emitter, with the workspace's options) into the same
// `dist/` files `tsc -p tsconfig.build.json` writes, all workspaces in one process. No type is checked and no
// declaration is written: the demo only runs the JavaScript, and `npm run typecheck`, `npm run build` and CI check
// the types. Every workspace compiles with `isolatedModules`, so a file transpiled alone emits what tsc emits.
// tsc per workspace took about 90 s for the demo's 30 workspaces on 2 CPUs, each run starting the compiler and
// reading `@types/node` again; this takes a few seconds (docs/BENCHMARKS.md, "npm start from a fresh clone").
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import ts from 'typescript';
import { DevError } from './errors.mjs';
import { readJson, workspaces } from './workspaces.mjs';

const TSC_BUILD = 'tsc -p tsconfig.build.json';

/** `names` and every workspace they depend on at run time, directly or not. */
export function withDependencies(names, all = workspaces()) {
  const byName = new Map(all.map((ws) => [ws.name, ws]));
  const wanted = new Set();
  const visit = (name) => {
    const ws = byName.get(name);
    if (!ws || wanted.has(name)) return;
    wanted.add(name);
    // What runs needs its dependencies only (the dependency lint keeps them declared); dev ones are for tests.
    for (const dependency of Object.keys(readJson(path.join(ws.dir, 'package.json')).dependencies ?? {})) visit(dependency);
  };
  names.forEach(visit);
  return all.filter((ws) => wanted.has(ws.name));
}

function readConfig(configPath) {
  const host = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new DevError(`${configPath}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    },
  };
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, host);
  if (!parsed) throw new DevError(`${configPath}: not readable`);
  if (parsed.errors.length > 0) throw new DevError(`${configPath}: ${ts.flattenDiagnosticMessageText(parsed.errors[0].messageText, '\n')}`);
  return parsed;
}

/**
 * Transpiles one workspace's `tsconfig.build.json` files to its outDir, with source maps when the options ask
 * for them. Answers the number of files written.
 */
export function transpileWorkspace(dir) {
  const configPath = path.join(dir, 'tsconfig.build.json');
  const { options, fileNames } = readConfig(configPath);
  if (!options.outDir || !options.rootDir) throw new DevError(`${configPath}: needs rootDir and outDir`);
  const compilerOptions = { ...options, declaration: false, declarationMap: false, noEmit: false };
  let written = 0;
  for (const file of fileNames) {
    if (file.endsWith('.d.ts')) continue;
    const out = path.join(options.outDir, path.relative(options.rootDir, file)).replace(/\.tsx?$/, '.js');
    const { outputText, sourceMapText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions, fileName: file, reportDiagnostics: true });
    const syntax = diagnostics?.find((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error);
    if (syntax) throw new DevError(`${path.relative(dir, file)}: ${ts.flattenDiagnosticMessageText(syntax.messageText, '\n')}`);
    mkdirSync(path.dirname(out), { recursive: true });
    if (sourceMapText) {
      // As tsc writes it: the map names its .js file and the source relative to the map.
      const map = { ...JSON.parse(sourceMapText), file: path.basename(out), sources: [path.relative(path.dirname(out), file)] };
      writeFileSync(`${out}.map`, JSON.stringify(map));
    }
    writeFileSync(out, outputText);
    written += 1;
  }
  return written;
}

/** Transpiles every workspace in `list` whose build is `tsc -p tsconfig.build.json`; answers the files written. */
export function transpileWorkspaces(list) {
  return list.filter((ws) => ws.scripts.build === TSC_BUILD).reduce((sum, ws) => sum + transpileWorkspace(ws.dir), 0);
}

/** The TypeScript-built workspaces of `list` spread over `parts` lists of about the same number of files. */
function spread(list, parts) {
  const sized = list
    .filter((ws) => ws.scripts.build === TSC_BUILD)
    .map((ws) => ({ dir: ws.dir, files: readConfig(path.join(ws.dir, 'tsconfig.build.json')).fileNames.length }))
    .sort((a, b) => b.files - a.files);
  const shares = Array.from({ length: parts }, () => ({ dirs: [], files: 0 }));
  for (const ws of sized) {
    const lightest = shares.reduce((min, share) => (share.files < min.files ? share : min));
    lightest.dirs.push(ws.dir);
    lightest.files += ws.files;
  }
  return shares.filter((share) => share.dirs.length > 0).map((share) => share.dirs);
}

/** Transpiles `list` on one worker thread per CPU (at most 4); answers the files written. */
export async function transpileInParallel(list) {
  const threads = spread(list, Math.min(4, os.availableParallelism()));
  const counts = await Promise.all(
    threads.map(
      (dirs) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), { workerData: { dirs } });
          worker.once('message', resolve);
          worker.once('error', reject);
          worker.once('exit', (code) => (code === 0 ? undefined : reject(new DevError(`a transpile thread exited with ${code}`))));
        }),
    ),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

if (!isMainThread && workerData?.dirs) {
  parentPort.postMessage(workerData.dirs.reduce((sum, dir) => sum + transpileWorkspace(dir), 0));
}

// `node infra/transpile.mjs <workspace name>...`: those workspaces and their dependencies, in a process of its own
// (npm start runs it beside the dashboard's vite build).
if (isMainThread && process.argv[1] === fileURLToPath(import.meta.url)) {
  const startedAt = Date.now();
  try {
    const list = withDependencies(process.argv.slice(2));
    const files = await transpileInParallel(list);
    process.stdout.write(`${files} files of ${list.length} workspaces in ${((Date.now() - startedAt) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  }
}
