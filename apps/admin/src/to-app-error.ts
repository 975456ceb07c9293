import { ConfigError } from '@hashwatch/config';
import { Prisma } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';

// Prisma error codes an operator can act on: https://www.prisma.io/docs/orm/reference/error-reference
const databaseUnavailable = new Set(['P1000', 'P1001', 'P1002', 'P1003', 'P1010', 'P1017']);
const schemaMissing = new Set(['P2021', 'P2022']);

/**
 * Turns any failure into an AppError whose message is safe and useful to print: one line, no stack
 * trace, no source excerpt. AppErrors pass through unchanged.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof ConfigError) return new AppError('internal_error', error.message);
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    // Prisma's message quotes the calling source lines first; its last line says what happened.
    const what = lastLine(error.message);
    if (error.code === 'P2025') return new AppError('not_found', what);
    if (error.code === 'P2002') return new AppError('already_exists', what);
    if (databaseUnavailable.has(error.code)) return new AppError('internal_error', `database unavailable: ${what}`);
    if (schemaMissing.has(error.code)) return new AppError('internal_error', `${what} Run npm run db:migrate first.`);
    return new AppError('internal_error', `database error ${error.code}: ${what}`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new AppError('internal_error', `unexpected error: ${firstLine(message)}`);
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim() ?? text;
}

function firstLine(text: string): string {
  return (text.trim().split('\n')[0] ?? '').slice(0, 500);
}
