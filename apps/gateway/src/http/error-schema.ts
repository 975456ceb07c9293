import { z } from 'zod';

/** The error body of one response status, with `code` narrowed to the codes that status can carry there. */
export function errorBodyWithCodes(codes: readonly [string, ...string[]]) {
  return z
    .object({
      error: z.object({
        code: z.enum(codes).meta({ example: codes[0] }),
        message: z.string().meta({ description: 'What went wrong, for people; the field is named for invalid input.' }),
      }),
    })
    .meta({ description: 'Every error answer has this shape.' });
}
