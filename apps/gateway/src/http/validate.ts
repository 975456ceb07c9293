import type { z } from 'zod';
import { AppError } from '@hashwatch/errors';

function describeIssue(issue: z.core.$ZodIssue, where: string): string {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    return `${path ? `${path}: ` : ''}unknown field${issue.keys.length > 1 ? 's' : ''} ${keys}`;
  }
  const field = path || where;
  return `${field}: ${issue.message}`;
}

/**
 * Parses `input` with `schema`; a failure becomes 400 `invalid_request` whose message names the field.
 * `where` names the input (body, query, path) when the problem is the input as a whole.
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const messages = result.error.issues.slice(0, 3).map((issue) => describeIssue(issue, where));
  throw new AppError('invalid_request', messages.join('; '));
}
