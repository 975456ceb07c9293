// The repository as the dev script sees it: its root, the private data directory and the workspaces.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Private instances, the demo account and the generated SECRETS_KEY live here (gitignored). */
export const DATA_DIR = path.join(ROOT, '.data');

export function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Every workspace the root package.json names (`apps/*`, `packages/*`, `e2e`), with its manifest's name and scripts. */
export function workspaces() {
  const found = [];
  const add = (rel) => {
    const manifest = path.join(ROOT, rel, 'package.json');
    if (!existsSync(manifest)) return;
    const pkg = readJson(manifest);
    found.push({ dir: path.join(ROOT, rel), rel, folder: path.basename(rel), name: pkg.name, scripts: pkg.scripts ?? {} });
  };
  for (const pattern of readJson(path.join(ROOT, 'package.json')).workspaces ?? []) {
    if (!pattern.endsWith('/*')) {
      add(pattern);
      continue;
    }
    const parent = pattern.slice(0, -2);
    if (!existsSync(path.join(ROOT, parent))) continue;
    for (const entry of readdirSync(path.join(ROOT, parent), { withFileTypes: true })) {
      if (entry.isDirectory()) add(`${parent}/${entry.name}`);
    }
  }
  return found.sort((a, b) => a.rel.localeCompare(b.rel));
}

/** Whether the workspace has any JavaScript or TypeScript under src/. */
export function hasSources(dir) {
  const src = path.join(dir, 'src');
  if (!existsSync(src)) return false;
  const walk = (folder) =>
    readdirSync(folder, { withFileTypes: true }).some((entry) =>
      entry.isDirectory() ? walk(path.join(folder, entry.name)) : /\.[cm]?[jt]sx?$/.test(entry.name),
    );
  return walk(src);
}
