// ESLint rule `hashwatch/workspace-boundaries`: imports flow from packages to apps, never back, and cross a
// workspace only by its package name.
//   - apps never import apps, packages never import apps (apps are composition roots, not libraries); an app
//     may locate another app's files with require.resolve('<app>/package.json'), which loads no code of it
//     (the gateway serves the dashboard's build);
//   - a relative import never leaves its workspace (import the other workspace by its package name, so
//     package.json states the dependency and the build order follows it);
//   - nothing imports another workspace's test fixtures or files below its entry point (`@hashwatch/x/...`),
//     except through a subpath that workspace's package.json `exports` offers, and bench/ never a `/testing` one.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** @param {string} root the repository root */
function readWorkspaces(root) {
  const workspaces = [];
  const add = (dir, group) => {
    const manifest = path.join(dir, 'package.json');
    if (!existsSync(manifest)) return;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    workspaces.push({ dir, group, name: pkg.name, exports: Object.keys(pkg.exports ?? {}) });
  };
  for (const group of ['apps', 'packages']) {
    const dir = path.join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) add(path.join(dir, name), group);
  }
  // The top-level workspaces the root package.json names (e2e, bench): each its own group, its folder's name.
  const rootManifest = path.join(root, 'package.json');
  const listed = existsSync(rootManifest) ? (JSON.parse(readFileSync(rootManifest, 'utf8')).workspaces ?? []) : [];
  for (const folder of listed.filter((pattern) => !pattern.includes('*') && !pattern.includes('/'))) add(path.join(root, folder), folder);
  return workspaces;
}

/** The folder a file belongs to for this rule: its workspace, or a top-level folder such as bench/ or e2e/. */
function homeOf(root, workspaces, file) {
  const owner = workspaces.find((workspace) => file.startsWith(workspace.dir + path.sep));
  if (owner) return { dir: owner.dir, group: owner.group };
  const top = path.relative(root, file).split(path.sep)[0];
  return { dir: path.join(root, top), group: top };
}

/** @param {string} root */
export function workspaceBoundaries(root) {
  const workspaces = readWorkspaces(root);
  const byName = new Map(workspaces.map((workspace) => [workspace.name, workspace]));
  return {
    meta: { type: 'problem', schema: [], docs: { description: 'imports respect workspace boundaries' } },
    create(context) {
      const file = context.filename;
      const home = homeOf(root, workspaces, file);
      const check = (node, specifier, locatesOnly = false) => {
        if (typeof specifier !== 'string') return;
        if (specifier.startsWith('.')) {
          const target = path.resolve(path.dirname(file), specifier);
          if (!target.startsWith(home.dir + path.sep)) {
            context.report({ node, message: `relative import '${specifier}' leaves ${path.relative(root, home.dir)}: import the other workspace by its package name` });
          }
          return;
        }
        const [scope, name, ...rest] = specifier.split('/');
        const target = byName.get(`${scope}/${name}`);
        if (!target) return;
        const locatesFiles = locatesOnly && home.group === 'apps' && rest.join('/') === 'package.json';
        if (target.group === 'apps' && (home.group === 'apps' || home.group === 'packages') && target.dir !== home.dir && !locatesFiles) {
          context.report({ node, message: `${home.group === 'apps' ? 'an app' : 'a package'} imports the app ${target.name}: move what both need into a package` });
          return;
        }
        const subpath = rest.length > 0 ? `./${rest.join('/')}` : '.';
        if (home.group === 'bench' && subpath === './testing') {
          context.report({ node, message: `bench/ measures what users run: '${specifier}' is a test fixture, import the public entry point` });
          return;
        }
        if (subpath !== '.' && subpath !== './package.json' && !target.exports.includes(subpath)) {
          context.report({ node, message: `'${specifier}' reaches below ${target.name}'s entry point: import what its package.json exports` });
        }
      };
      return {
        ImportDeclaration: (node) => check(node, node.source.value),
        ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
        ExportAllDeclaration: (node) => check(node, node.source.value),
        ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
        CallExpression: (node) => {
          const callee = node.callee;
          const isRequire = callee.type === 'Identifier' && callee.name === 'require';
          const isResolve = callee.type === 'MemberExpression' && callee.object.name === 'require' && callee.property.name === 'resolve';
          if ((isRequire || isResolve) && node.arguments[0]?.type === 'Literal') check(node, node.arguments[0].value, isResolve);
        },
      };
    },
  };
}
