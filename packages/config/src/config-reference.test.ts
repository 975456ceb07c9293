import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { configSchema, requiredSecretsKey } from './config';
import { renderConfigReference } from './config-reference';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** What `npm run docs:config` writes, rendered from every app's schema (infra/config-doc.ts imports the apps). */
function renderedDoc(): string {
  const result = spawnSync('npx', ['--no-install', 'tsx', '--tsconfig', 'infra/config-doc-tsconfig.json', 'infra/config-doc.ts', '--markdown'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0) throw new Error(`infra/config-doc.ts failed: ${result.stderr}`);
  return result.stdout;
}

describe('renderConfigReference', () => {
  const gateway = configSchema.extend({ SECRETS_KEY: requiredSecretsKey, TRUST_PROXY: z.coerce.number().default(0).describe('Proxies | in front.') });
  const scanner = configSchema.extend({ TRUST_PROXY: z.coerce.number().default(2), SWEEP: z.string().optional().describe('How often.') });
  const doc = renderConfigReference([
    { app: 'gateway', schema: gateway },
    { app: 'scanner', schema: scanner },
  ]);
  const row = (name: string) => doc.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));

  it('lists a shared variable as read by every app, with its default and description', () => {
    expect(row('REDIS_URL')).toBe('| `REDIS_URL` | every app | `redis://127.0.0.1:6379` | Redis (queues, rate limits, caches), with `maxmemory-policy noeviction`. Ignored when `REDIS_CLUSTER_NODES` is set. |');
  });

  it('names the apps that make a shared variable required', () => {
    expect(row('SECRETS_KEY')).toMatch(/^\| `SECRETS_KEY` \| every app \| none; required by gateway \|/);
  });

  it('gives each app its default when they differ, and escapes the table separator', () => {
    expect(row('TRUST_PROXY')).toBe('| `TRUST_PROXY` | gateway, scanner | `0` (gateway); `2` (scanner) | Proxies \\| in front. |');
    expect(row('SWEEP')).toBe('| `SWEEP` | scanner | none | How often. |');
  });

  it('describes every variable of the shared schema', () => {
    for (const [name, field] of Object.entries(configSchema.shape)) expect([name, field.description?.length ?? 0]).not.toEqual([name, 0]);
  });
});

describe('docs/CONFIGURATION.md', () => {
  it('is what the environment schemas render', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'CONFIGURATION.md'), 'utf8');
    if (doc !== renderedDoc()) throw new Error('docs/CONFIGURATION.md differs from the environment schemas: run `npm run docs:config`');
  });

  it('describes every variable it lists', () => {
    const rows = readFileSync(path.join(ROOT, 'docs', 'CONFIGURATION.md'), 'utf8').split('\n').filter((line) => /^\| `[A-Z]/.test(line));
    expect(rows.length).toBeGreaterThan(40);
    for (const line of rows) expect(line).not.toMatch(/\|\s*\|$/);
  });
});
