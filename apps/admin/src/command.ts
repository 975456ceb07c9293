import type { z } from 'zod';
import type { SecurityChange } from '@hashwatch/accounts';
import type { PrismaClient } from '@hashwatch/db';
import type { Cipher } from '@hashwatch/secrets';

/** What a command may touch: the database, the clock and the secrets key, passed in by `main.ts` or a test. */
export interface CommandDeps {
  prisma: PrismaClient;
  now: () => Date;
  /** From SECRETS_KEY (and SECRETS_KEY_PREVIOUS); absent when SECRETS_KEY is not set. */
  cipher?: Cipher;
  /**
   * Mails the account's address of a security change a command made (CONTRACT 4), when SMTP_URL is set; absent
   * without it. Never throws: a mail that cannot be sent is reported on stderr, and the command still succeeded.
   */
  notify?: (accountId: string, change: SecurityChange) => Promise<void>;
}

/** The one JSON object a command prints on stdout. */
export type CommandOutput = Record<string, unknown>;

/**
 * One admin command. `flags` is a zod object keyed by flag name without the dashes (`scan-interval`);
 * every flag takes a value, so the flag parser is derived from its keys and validation messages name
 * the flag.
 */
export interface Command<Shape extends z.ZodRawShape = z.ZodRawShape> {
  usage: string;
  description: string;
  flags: z.ZodObject<Shape>;
  run(input: z.output<z.ZodObject<Shape>>, deps: CommandDeps): Promise<CommandOutput>;
}

/** Identity function that lets TypeScript infer a command's input type from its flag schema. */
export function defineCommand<Shape extends z.ZodRawShape>(command: Command<Shape>): Command<Shape> {
  return command;
}
