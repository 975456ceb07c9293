import { z } from 'zod';

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().meta({ example: 'invalid_request' }),
      message: z.string().meta({ example: 'hashtag: must be 1-100 letters, digits or _' }),
    }),
  })
  .meta({ id: 'Error', description: 'Every error answer has this shape (SPEC section 7).' });
