// `npm run lint` step: each workspace's package.json declares exactly the packages its files import — none
// undeclared (it would work only by hoisting, and turbo would not build it first), none unused.
// A declared package also counts as used when the workspace's scripts run its binary (tsx, prisma …), when a
// tsconfig extends it, when a vite config names it as vitest's test environment (jsdom), and (for
// @hashwatch/testing) when the workspace has tests, whose jest set-up loads it.
// The root's devDependencies (jest, supertest, tsx, type packages) are the shared tools of every workspace.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.turbo', 'coverage']);
// Static imports and re-exports (over several lines too), side-effect imports, import(), require() and require.resolve().
const SPECIFIER = /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\b(?:import|require|require\.resolve)\(\s*['"]([^'"]+)['"]\s*\)/gm;
// vitest loads its test environment's package by name (`environment: 'jsdom'` in a vite config).
const TEST_ENVIRONMENT = /\benvironment\s*:\s*['"]([a-z@][^'"]*)['"]/g;
const BUILTINS = new Set(builtinModules);

function workspaceDirs(root) {
  const { workspaces } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [path.join(root, pattern)];
    const parent = path.join(root, pattern.slice(0, -2));
    return readdirSync(parent).map((name) => path.join(parent, name));
  }).filter((dir) => existsSync(path.join(dir, 'package.json')));
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir)) {
    if (SKIPPED_DIRS.has(entry)) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) yield* sourceFiles(full);
    else if (SOURCE.test(entry)) yield full;
  }
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`; undefined for relative paths and Node built-ins. */
function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return BUILTINS.has(name) ? undefined : name;
}

function usedPackages(dir, pkg) {
  const used = new Set();
  let hasTests = false;
  for (const file of sourceFiles(dir)) {
    if (/\.test\.[a-z]+$/.test(file)) hasTests = true;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      const name = packageOf(match[1] ?? match[2] ?? match[3]);
      if (name) used.add(name);
    }
    if (/(^|\/)vite(st)?\.config\.[a-z]+$/.test(file)) for (const match of text.matchAll(TEST_ENVIRONMENT)) used.add(match[1]);
  }
  for (const entry of readdirSync(dir).filter((name) => /^tsconfig.*\.json$/.test(name))) {
    // tsconfig files hold comments, so not JSON.parse: the one field needed is a plain string.
    const extended = /"extends"\s*:\s*"([^"]+)"/.exec(readFileSync(path.join(dir, entry), 'utf8'))?.[1];
    const name = extended && packageOf(extended);
    if (name) used.add(name);
  }
  const scripts = Object.values(pkg.scripts ?? {}).join('\n');
  return { used, scripts, hasTests };
}

/** Every mismatch between a workspace's package.json and its imports, one line each; none when they agree. */
export function dependencyProblems(root) {
  const manifests = new Map(workspaceDirs(root).map((dir) => {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return [pkg.name, pkg];
  }));
  // A workspace that itself depends on the importer (the test fixtures' package, imported by the tests of the
  // database package it is built on) is used without being declared: declaring it would make a cycle that
  // the build cannot order.
  const dependsOn = (name, importer) => Boolean(manifests.get(name)?.dependencies?.[importer]);
  const rootTools = Object.keys(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies ?? {});
  const problems = [];
  for (const dir of workspaceDirs(root)) {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const declared = new Set(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.peerDependencies }));
    const { used, scripts, hasTests } = usedPackages(dir, pkg);
    const where = path.relative(root, path.join(dir, 'package.json'));
    for (const name of [...used].sort()) {
      if (name === pkg.name || declared.has(name) || rootTools.includes(name) || dependsOn(name, pkg.name)) continue;
      problems.push(`${where}: imports ${name} but does not declare it`);
    }
    for (const name of [...declared].sort()) {
      const typesOf = name.startsWith('@types/') ? name.slice('@types/'.length) : undefined;
      const runsBinary = new RegExp(`(^|[\\s&|;(])${name.replace(/^@[^/]+\//, '')}\\b`).test(scripts);
      const loadedByJest = name === '@hashwatch/testing' && hasTests;
      if (used.has(name) || (typesOf && used.has(typesOf)) || runsBinary || loadedByJest) continue;
      problems.push(`${where}: declares ${name} but nothing in the workspace imports it`);
    }
  }
  return problems;
}

// Run as a script (`npm run lint`): the repository this file sits in.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = dependencyProblems(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'));
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n${problems.length} dependency problem(s)\n`);
    process.exit(1);
  }
  process.stdout.write('dependencies match the imports of every workspace\n');
}
