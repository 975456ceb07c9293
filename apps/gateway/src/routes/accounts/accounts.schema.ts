import { z } from 'zod';
import { engagementFlagFields, engagementFlagInputFields, filterFields, filterInputFields, sourceHealthFields } from '../sources/source-fields.schema';

// 1-15 of A-Za-z0-9_, without the leading @ (X's own handle rule).
const username = z
  .string()
  .regex(/^[A-Za-z0-9_]{1,15}$/, 'must be 1-15 letters, digits or _, without @')
  .meta({ example: 'alice' });

export const createAccountTrackSchema = z
  .strictObject({
    username,
    exclude_replies: z.boolean().optional().meta({ description: 'Default true. Replies to the handle are left out of its mentions too.' }),
    include_mentions: z.boolean().optional().meta({ description: 'Also detect posts that mention the handle (`matched_by: "mention"`). Default false.' }),
    ...engagementFlagInputFields,
    ...filterInputFields,
  })
  .meta({ id: 'CreateAccountTrack' });

export const accountTrackSchema = z
  .object({
    id: z.string().meta({ example: 'acc_Qm2x9XkQzLpTnW8r' }),
    username: z.string(),
    exclude_replies: z.boolean(),
    include_mentions: z.boolean(),
    ...engagementFlagFields,
    ...filterFields,
    status: z.literal('active'),
    created_at: z.string().meta({ example: '2026-11-22T01:24:59.123Z' }),
    ...sourceHealthFields,
  })
  .meta({ id: 'AccountTrack' });

export const accountTrackListSchema = z.object({ data: z.array(accountTrackSchema) }).meta({ id: 'AccountTrackList' });
export const accountTrackIdParamsSchema = z.object({ id: z.string().max(64).meta({ example: 'acc_Qm2x9XkQzLpTnW8r' }) });

export type CreateAccountTrack = z.infer<typeof createAccountTrackSchema>;
export type AccountTrackBody = z.infer<typeof accountTrackSchema>;
