import { z } from 'zod';

export const regeneratedKeySchema = z
  .object({
    api_key: z.string().meta({ example: 'hw_live_3q2x9XkQzLpTnW8r...', description: 'The new key. Shown once; only its hash is stored.' }),
  })
  .meta({ id: 'RegeneratedApiKey' });
