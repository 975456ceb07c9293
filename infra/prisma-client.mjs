// The Prisma client in packages/db/src/generated/prisma, generated only when it is missing or was
// generated from another schema or Prisma version (a hash of both is kept beside it).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DevError } from './errors.mjs';
import { say } from './output.mjs';
import { readJson, ROOT } from './workspaces.mjs';

const GENERATED_DIR = path.join(ROOT, 'packages/db/src/generated/prisma');
const SCHEMA_HASH_FILE = path.join(GENERATED_DIR, '.schema-hash');

function schemaHash(prismaPkg) {
  return createHash('sha256')
    .update(readFileSync(path.join(ROOT, 'prisma/schema.prisma')))
    .update(`\0prisma ${readJson(prismaPkg).version}`)
    .digest('hex');
}

export async function generatePrismaClient(supervisor) {
  const prismaPkg = path.join(ROOT, 'node_modules/prisma/package.json');
  if (!existsSync(prismaPkg)) throw new DevError('the prisma CLI is not installed: run `npm install` first');
  const hash = schemaHash(prismaPkg);
  const current = existsSync(SCHEMA_HASH_FILE) ? readFileSync(SCHEMA_HASH_FILE, 'utf8').trim() : undefined;
  const present = existsSync(path.join(GENERATED_DIR, 'client.ts'));
  if (present && current === hash) return;
  say(`prisma generate (${present ? 'prisma/schema.prisma or the prisma version changed' : 'no generated client yet'})`);
  const env = {
    ...process.env,
    // generate never migrates; Prisma only checks that the schema engine binary exists, and it cannot
    // be downloaded on every machine.
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath,
    CHECKPOINT_DISABLE: '1',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  };
  const code = await supervisor.runForeground('npx', ['--no-install', 'prisma', 'generate'], { env });
  if (code !== 0) throw new DevError(`prisma generate failed (exit ${code})`);
  writeFileSync(SCHEMA_HASH_FILE, `${hash}\n`);
}
