// Where a V8 CPU profile (node --cpu-prof, e.g. NOTIFIER_BENCH_PROFILE) spent its time: self time by package (our
// workspaces by name, node_modules by package, Node's own code, idle and garbage collection), the functions with
// the most self time, and our own functions by inclusive time (what they and everything they called took).
//
//   npx tsx --tsconfig bench/tsconfig.json bench/profile-summary.ts <file.cpuprofile> [functions shown, default 15]
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const profileSchema = z.object({
  nodes: z.array(z.object({
    id: z.number(),
    callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() }),
    children: z.array(z.number()).optional(),
  })),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

type CallFrame = z.infer<typeof profileSchema>['nodes'][number]['callFrame'];

/** The package a frame's code belongs to: `@hashwatch/<dir>`, a node_modules package, `node`, or V8's own entries. */
function packageOf(frame: CallFrame): string {
  if (frame.url === '') return frame.functionName.startsWith('(') ? frame.functionName : `(${frame.functionName || 'native'})`;
  if (frame.url.startsWith('node:')) return 'node';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (modules) return modules[1]!;
  const workspace = /\/(apps|packages)\/([^/]+)\//.exec(frame.url);
  if (workspace) return `@hashwatch/${workspace[2]}`;
  return frame.url;
}

function main(): void {
  const [file, shown = '15'] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [functions shown]');
  const profile = profileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const nameOf = (frame: CallFrame) => `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(node_modules|apps|packages)\//, '$1/')}:${frame.lineNumber + 1}`;
  const inclusive = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    const frame = frames.get(id);
    if (!frame) return;
    total += micros;
    const pkg = packageOf(frame);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
    byFunction.set(nameOf(frame), (byFunction.get(nameOf(frame)) ?? 0) + micros);
    // Each of our functions on the sample's stack counts the sample once.
    const seen = new Set<string>();
    for (let node: number | undefined = id; node !== undefined; node = parents.get(node)) {
      const onStack = frames.get(node);
      if (onStack && packageOf(onStack).startsWith('@hashwatch/')) seen.add(nameOf(onStack));
    }
    for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + micros);
  });
  const busy = total - (byPackage.get('(idle)') ?? 0) - (byPackage.get('(program)') ?? 0);
  const line = (label: string, micros: number) =>
    `${(micros / 1000).toFixed(0).padStart(8)} ms ${((micros / total) * 100).toFixed(1).padStart(5)} %  ${label}`;
  process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s on the CPU (not idle, not (program))\n\nself time by package:\n`);
  for (const [pkg, micros] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 20)) process.stdout.write(`${line(pkg, micros)}\n`);
  process.stdout.write('\nfunctions with the most self time:\n');
  for (const [name, micros] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(shown))) process.stdout.write(`${line(name, micros)}\n`);
  process.stdout.write('\nour functions by inclusive time:\n');
  for (const [name, micros] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, Number(shown))) process.stdout.write(`${line(name, micros)}\n`);
}

main();
