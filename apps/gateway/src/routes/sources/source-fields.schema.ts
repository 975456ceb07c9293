/** The fields every source (track, account track) shares: engagement flags, filters, scan health, and what a PATCH may change. */
import { filtersInputSchema, filtersSchema, normalizeFilters } from '@hashwatch/post-filters';
import { z } from 'zod';

/** What a PATCH may change: the four engagement booleans and the filters (any other field is 400). */
export const sourcePatchSchema = z
  .strictObject({
    track_engagement: z.boolean().optional(),
    track_likes: z.boolean().optional(),
    track_reposts: z.boolean().optional(),
    track_comments: z.boolean().optional(),
    filters: filtersInputSchema.nullable().optional().meta({ description: 'Replaces every filter of the source; null removes them all.' }),
  })
  .meta({ id: 'SourcePatch', description: 'Any subset of the four engagement booleans, and the filters as a whole.' });

/** An account track's PATCH: a source's, and whether posts mentioning the handle are detected too. */
export const accountTrackPatchSchema = sourcePatchSchema
  .extend({ include_mentions: z.boolean().optional() })
  .meta({ id: 'AccountTrackPatch', description: 'Any subset of the four engagement booleans and include_mentions, and the filters as a whole.' });

export type SourcePatch = z.infer<typeof sourcePatchSchema> & { include_mentions?: boolean | undefined };

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

/** The filters as a create body takes them: optional, none when left out. */
export const filterInputFields = {
  filters: filtersInputSchema.nullable().optional().meta({ description: 'Which of the source\'s posts reach this account; left out or null: every post.' }),
};

/** The filters as answered: every field, lists possibly empty. */
export const filterFields = { filters: filtersSchema };

/** Columns to SET for a PATCH, in a fixed order, and their values. */
export function patchAssignments(patch: SourcePatch): { sql: string; values: unknown[] } {
  const flags = (['track_engagement', 'track_likes', 'track_reposts', 'track_comments', 'include_mentions'] as const).filter((key) => patch[key] !== undefined);
  const sets = flags.map((column, index) => `${column} = $${index + 3}`);
  const values: unknown[] = flags.map((column) => patch[column] as boolean);
  if (patch.filters !== undefined) {
    sets.push(`filters = $${values.length + 3}::jsonb`);
    values.push(normalizeFilters(patch.filters));
  }
  return { sql: sets.join(', '), values };
}
