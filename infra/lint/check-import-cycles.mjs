// `npm run lint` step: no import circles between the files of a workspace or the bench scripts. Two files that
// import each other (type-only imports included) are one module split in two: the shared type belongs a floor
// down, in a file both can import. Only relative imports are followed; packages are kept in order by
// check-dependencies.mjs and the workspace-boundaries rule.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.turbo', 'coverage', 'generated']);
// Static imports and re-exports (over several lines too), side-effect imports, import(), require().
const SPECIFIER = /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/gm;
// `./x.js` in ESM-style TypeScript names `./x.ts`.
const EMITTED = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'], '.jsx': ['.tsx'] };
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs'];

/** The folders whose files are checked: each workspace's src/, e2e/src and bench/. */
function checkedDirs(root) {
  const dirs = [path.join(root, 'e2e/src'), path.join(root, 'bench')];
  for (const parent of ['apps', 'packages']) {
    if (!existsSync(path.join(root, parent))) continue;
    for (const name of readdirSync(path.join(root, parent))) dirs.push(path.join(root, parent, name, 'src'));
  }
  return dirs.filter((dir) => existsSync(dir) && statSync(dir).isDirectory());
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir)) {
    if (SKIPPED_DIRS.has(entry)) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) yield* sourceFiles(full);
    else if (SOURCE.test(entry) && !entry.endsWith('.d.ts')) yield full;
  }
}

/** The checked file a relative specifier names, or undefined (a package, or a file outside the checked set). */
function resolve(from, specifier, files) {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.resolve(path.dirname(from), specifier);
  const extension = path.extname(target);
  const candidates = [target, ...(EMITTED[extension] ?? []).map((ext) => target.slice(0, -extension.length) + ext)];
  for (const ext of EXTENSIONS) candidates.push(target + ext, path.join(target, `index${ext}`));
  return candidates.find((candidate) => files.has(candidate));
}

/** Each file's relative imports among the checked files. */
function importGraph(root) {
  const files = new Set(checkedDirs(root).flatMap((dir) => [...sourceFiles(dir)]));
  const graph = new Map();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set();
    for (const match of text.matchAll(SPECIFIER)) {
      const target = resolve(file, match[1] ?? match[2] ?? match[3], files);
      if (target) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** Strongly connected components (Tarjan) with more than one file, or a file that imports itself. */
function circles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file)) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file), index.get(target)));
    }
    if (low.get(file) !== index.get(file)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file).includes(file)) found.push(component);
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return found;
}

/** One path around a component, from its first file back to it: `a → b → a`. */
function pathAround(component, graph) {
  const members = new Set(component);
  const start = [...component].sort()[0];
  // Breadth-first from the start to any file that imports the start: the shortest circle through it.
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const target of graph.get(file)) {
      if (target === start) {
        const route = [start];
        for (let at = file; at !== start; at = previous.get(at)) route.splice(1, 0, at);
        return [...route, start];
      }
      if (members.has(target) && !previous.has(target)) {
        previous.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/**
 * Every import circle in the repository, one line each (`a.ts → b.ts → a.ts`, then the other files caught in
 * the same tangle, if any); none when imports flow one way.
 */
export function importCycles(root) {
  const graph = importGraph(root);
  const relative = (file) => path.relative(root, file);
  return circles(graph)
    .map((component) => {
      const route = pathAround(component, graph);
      const others = component.filter((file) => !route.includes(file)).map(relative).sort();
      return route.map(relative).join(' → ') + (others.length > 0 ? ` (also caught in it: ${others.join(', ')})` : '');
    })
    .sort();
}

// Run as a script (`npm run lint`): the repository this file sits in.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cycles = importCycles(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'));
  if (cycles.length > 0) {
    process.stderr.write(`${cycles.map((cycle) => `import circle: ${cycle}`).join('\n')}\n${cycles.length} import circle(s)\n`);
    process.exit(1);
  }
  process.stdout.write('no import circles\n');
}
