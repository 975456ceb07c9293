import { AppError } from '@hashwatch/errors';
import type { Command, CommandDeps, CommandOutput } from './command';
import { commands, type CommandName } from './commands';
import { parseFlags } from './parse-flags';
import { toAppError } from './to-app-error';

/**
 * Runs one admin command from its arguments (`['account:create', '--email', ...]`) and returns the JSON
 * object to print. Every failure is an {@link AppError}: `invalid_request` for a bad command or flag,
 * `not_found`, `already_exists`, or `internal_error` for anything unexpected.
 */
export async function runCommand(argv: readonly string[], deps: CommandDeps): Promise<CommandOutput> {
  const [name, ...args] = argv;
  if (name === 'help' || name === '--help') return help();
  if (name === undefined || !isCommandName(name)) {
    const known = `one of ${Object.keys(commands).join(', ')}, or help`;
    throw new AppError('invalid_request', name === undefined ? `missing command: ${known}` : `unknown command ${name}: ${known}`);
  }
  const command: Command = commands[name];
  const input = parseFlags(name, command.flags, args);
  try {
    return await command.run(input, deps);
  } catch (error) {
    throw toAppError(error);
  }
}

function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(commands, name);
}

function help(): CommandOutput {
  return {
    commands: Object.values(commands).map((command) => ({ usage: command.usage, description: command.description })),
  };
}
