// `node infra/dev.mjs generate`, what @hashwatch/db's `generate` script (a turbo task before every build)
// runs: the Prisma client, regenerated only when it is out of date.
import { ensureInstall } from './install.mjs';
import { generatePrismaClient } from './prisma-client.mjs';

export async function generateCommand(supervisor) {
  await ensureInstall(supervisor);
  await generatePrismaClient(supervisor);
  return 0;
}
