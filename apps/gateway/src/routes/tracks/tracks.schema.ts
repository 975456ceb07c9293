import { z } from 'zod';
import { engagementFlagFields, engagementFlagInputFields, filterFields, filterInputFields, sourceHealthFields } from '../sources/source-fields.schema';

// 1-100 letters (any script), digits or _, without the leading #.
const hashtag = z
  .string()
  .regex(/^[\p{L}\p{M}\p{N}_]{1,100}$/u, 'must be 1-100 letters, digits or _, without #')
  .meta({ example: 'btc', description: 'The tag without `#`; matches both `#tag` and `$tag`.' });
const lang = z
  .string()
  .regex(/^[a-z]{2,3}$/, 'must be 2-3 lowercase letters')
  .nullable()
  .meta({ example: 'en', description: 'Language filter, or null for every language.' });

export const createTrackSchema = z
  .strictObject({
    hashtag,
    lang: lang.optional(),
    exclude_retweets: z.boolean().optional().meta({ description: 'Default true.' }),
    ...engagementFlagInputFields,
    ...filterInputFields,
  })
  .meta({ id: 'CreateTrack' });

export const trackSchema = z
  .object({
    id: z.string().meta({ example: 'trk_3q2x9XkQzLpTnW8r' }),
    hashtag: z.string(),
    lang: z.string().nullable(),
    exclude_retweets: z.boolean(),
    ...engagementFlagFields,
    ...filterFields,
    status: z.literal('active'),
    created_at: z.string().meta({ example: '2026-11-22T01:24:59.123Z' }),
    ...sourceHealthFields,
  })
  .meta({ id: 'Track' });

export const trackListSchema = z.object({ data: z.array(trackSchema) }).meta({ id: 'TrackList' });
export const trackIdParamsSchema = z.object({ id: z.string().max(64).meta({ example: 'trk_3q2x9XkQzLpTnW8r' }) });

export type CreateTrack = z.infer<typeof createTrackSchema>;
export type TrackBody = z.infer<typeof trackSchema>;
