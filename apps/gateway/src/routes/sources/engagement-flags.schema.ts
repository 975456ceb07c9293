import { z } from 'zod';

/** The four engagement booleans: the only fields a PATCH may hold (any other field is 400). */
export const engagementFlagsPatchSchema = z
  .strictObject({
    track_engagement: z.boolean().optional(),
    track_likes: z.boolean().optional(),
    track_reposts: z.boolean().optional(),
    track_comments: z.boolean().optional(),
  })
  .meta({ id: 'EngagementFlagsPatch', description: 'Any subset of the four engagement booleans.' });

export type EngagementFlagsPatch = z.infer<typeof engagementFlagsPatchSchema>;

export const sourceHealthFields = {
  last_scanned_at: z.string().nullable().meta({ description: 'When the source was last scanned upstream; null before the first scan.' }),
  last_post_at: z.string().nullable().meta({ description: 'Publication time (X\'s created_at, whole seconds) of the newest post matched from this source.' }),
  scan_error: z.string().nullable().meta({ description: 'Null, or a short reason why the last scan of this source failed.' }),
};

export const engagementFlagFields = {
  track_engagement: z.boolean(),
  track_likes: z.boolean(),
  track_reposts: z.boolean(),
  track_comments: z.boolean(),
};

/** The engagement booleans as a create body takes them: each optional, with its default. */
export const engagementFlagInputFields = {
  track_engagement: z.boolean().optional().meta({ description: 'Default false.' }),
  track_likes: z.boolean().optional().meta({ description: 'Default true.' }),
  track_reposts: z.boolean().optional().meta({ description: 'Default true.' }),
  track_comments: z.boolean().optional().meta({ description: 'Default true.' }),
};

export const deletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'Deleted' });

/** Columns to SET for a PATCH, in a fixed order, and their values. */
export function flagAssignments(patch: EngagementFlagsPatch): { sql: string; values: boolean[] } {
  const columns = (['track_engagement', 'track_likes', 'track_reposts', 'track_comments'] as const).filter((key) => patch[key] !== undefined);
  return {
    sql: columns.map((column, index) => `${column} = $${index + 3}`).join(', '),
    values: columns.map((column) => patch[column] as boolean),
  };
}
