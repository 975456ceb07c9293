import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { AppError } from '@hashwatch/errors';

/**
 * Parses `--name value` / `--name=value` flags strictly against a command's flag schema. Unknown, repeated
 * or valueless flags and stray arguments are `invalid_request` naming the flag.
 */
export function parseFlags<Shape extends z.ZodRawShape>(
  commandName: string,
  schema: z.ZodObject<Shape>,
  args: readonly string[],
): z.output<z.ZodObject<Shape>> {
  const names = Object.keys(schema.shape);
  const options = Object.fromEntries(names.map((name) => [name, { type: 'string' as const }]));
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; strict: true; allowPositionals: false; tokens: true }>>;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: false, tokens: true });
  } catch (error) {
    throw new AppError('invalid_request', parseArgsProblem(commandName, names, error));
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) throw new AppError('invalid_request', `--${token.name} is given more than once`);
    seen.add(token.name);
  }
  const result = schema.safeParse({ ...parsed.values });
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new AppError('invalid_request', `--${String(issue?.path[0] ?? '?')} ${issue?.message ?? 'is invalid'}`);
  }
  return result.data;
}

function parseArgsProblem(commandName: string, names: string[], error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  // node:util names the culprit in quotes: "Unknown option '--foo'", "Option '--email <value>' argument missing".
  const culprit = /'([^'\s]+)/.exec(message)?.[1] ?? '?';
  const expected = names.length > 0 ? `its flags are ${names.map((name) => `--${name}`).join(', ')}` : 'it takes no flags';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown flag ${culprit} for ${commandName}: ${expected}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      // Also raised for a value that starts with a dash (`--hashtags -5`): it could be a forgotten value.
      return message.includes('ambiguous')
        ? `${culprit} needs a value; write a value that starts with a dash as ${culprit}=<value>`
        : `${culprit} needs a value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${culprit} for ${commandName}: ${expected}, each followed by its value`;
    default:
      return message.split('\n')[0] ?? 'invalid flags';
  }
}
