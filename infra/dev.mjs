#!/usr/bin/env node
// The dev-services script behind `npm start`, `npm test` and `npm run db:migrate` (README.md, Quick start).
// Plain Node, built-ins only: it must run on a fresh clone before `npm install`.
//
//   node infra/dev.mjs generate   Prisma client, regenerated only when prisma/schema.prisma changed
//   node infra/dev.mjs migrate    generate, create the DATABASE_URL database when missing, migrate + seed
//   node infra/dev.mjs test [name…] install, services, generate, every workspace's tests (or the named ones), a summary
//   node infra/dev.mjs quick [--all] unit tests of what changed since main (or all), no services
//   node infra/dev.mjs start      install, services, generate, build, migrate, demo account, every app
//
// Variables already set in the environment win over the demo defaults, except DATABASE_URL and REDIS_URL
// when nothing answers there (a private instance or a container replaces them).
//
// Exit codes: 0 done; 1 failed (a test failed, or one `hashwatch: ...` line says why); 2 unknown command;
// 130 stopped by a signal.
import { DevError, Interrupted } from './errors.mjs';
import { generateCommand } from './generate.command.mjs';
import { migrateCommand } from './migrate.command.mjs';
import { quickCommand } from './quick.command.mjs';
import { startCommand } from './start.command.mjs';
import { Supervisor } from './supervisor.mjs';
import { testCommand } from './test.command.mjs';

const COMMANDS = {
  generate: generateCommand,
  migrate: migrateCommand,
  test: testCommand,
  quick: quickCommand,
  start: startCommand,
};

async function main() {
  const supervisor = new Supervisor();
  supervisor.attach();
  const command = COMMANDS[process.argv[2]];
  if (!command) {
    process.stderr.write(`usage: node infra/dev.mjs ${Object.keys(COMMANDS).join('|')}\n`);
    return 2;
  }
  try {
    return await command(supervisor, process.argv.slice(3));
  } catch (error) {
    await supervisor.runCleanups();
    if (error instanceof Interrupted) return 130;
    if (error instanceof DevError) {
      process.stderr.write(`hashwatch: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`hashwatch: unexpected failure: ${error.stack ?? error}\n`);
    process.exit(1);
  },
);
