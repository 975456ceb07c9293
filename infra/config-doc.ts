// npm run docs:config   (npx tsx --tsconfig infra/config-doc-tsconfig.json infra/config-doc.ts --write)
// docs/CONFIGURATION.md is rendered from the environment schema every app parses at start-up: the shared fields'
// and each app's own `.describe()` texts, defaults and requirements. `--markdown` prints it; `--check` exits 1 when
// the file differs (packages/config's test runs that); `--write` rewrites it.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { adminConfigSchema } from '@hashwatch/admin';
import { inboxConfig } from '@hashwatch/alert-inbox';
import { renderConfigReference, type ConfigReader } from '@hashwatch/config';
import { pollerConfig } from '@hashwatch/engagement-poller';
import { gatewayConfigSchema } from '@hashwatch/gateway';
import { notifierConfig } from '@hashwatch/notifier';
import { scannerConfig } from '@hashwatch/scanner';
import { envSchema as xSimConfig } from '@hashwatch/x-sim';

const DOC = path.resolve(__dirname, '..', 'docs', 'CONFIGURATION.md');

/** Every process that reads the environment, in the order the reference lists them. */
const READERS: ConfigReader[] = [
  { app: 'gateway', schema: gatewayConfigSchema },
  { app: 'scanner', schema: scannerConfig },
  { app: 'engagement-poller', schema: pollerConfig },
  { app: 'notifier', schema: notifierConfig },
  { app: 'admin', schema: adminConfigSchema },
  { app: 'x-sim', schema: xSimConfig },
  { app: 'alert-inbox', schema: inboxConfig },
];

const rendered = renderConfigReference(READERS);
const mode = process.argv[2] ?? '--markdown';
if (mode === '--write') {
  writeFileSync(DOC, rendered);
} else if (mode === '--check') {
  const current = readFileSync(DOC, 'utf8');
  if (current !== rendered) {
    process.stderr.write('docs/CONFIGURATION.md differs from the environment schemas: run `npm run docs:config`\n');
    process.exitCode = 1;
  }
} else if (mode === '--markdown') {
  process.stdout.write(rendered);
} else {
  process.stderr.write(`unknown option ${mode}: --markdown, --check or --write\n`);
  process.exitCode = 2;
}
