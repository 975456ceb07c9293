import { z } from 'zod';
import { NOTICE_KINDS } from '@hashwatch/notices';

/** The kinds of CONTRACT 8, from the package that writes them (the notices table's CHECK constraint lists the same). */
export { NOTICE_KINDS };

export const NOTICE_STATES = ['open', 'resolved'] as const;
export const DEFAULT_NOTICES_LIMIT = 20;
export const MAX_NOTICES_LIMIT = 100;

const limitMessage = `must be an integer from 1 to ${MAX_NOTICES_LIMIT}`;
const timestamp = z.string().meta({ example: '2026-11-27T01:02:03.123Z' });

export const listNoticesQuerySchema = z
  .strictObject({
    state: z
      .enum(NOTICE_STATES, { error: `must be one of ${NOTICE_STATES.join(', ')}` })
      .optional()
      .meta({ description: 'Only notices still open, or only resolved ones. Omitted: both.' }),
    limit: z.coerce
      .number({ error: limitMessage })
      .int(limitMessage)
      .min(1, limitMessage)
      .max(MAX_NOTICES_LIMIT, limitMessage)
      .default(DEFAULT_NOTICES_LIMIT)
      .meta({ description: `Notices per page: 1 to ${MAX_NOTICES_LIMIT}, default ${DEFAULT_NOTICES_LIMIT}.` }),
    cursor: z
      .string()
      .max(300, 'malformed; pass next_cursor exactly as it was returned')
      .optional()
      .meta({ description: 'Opaque: the `next_cursor` of the previous page, sent with the same `state` (`limit` may change).' }),
  })
  .meta({ id: 'ListNoticesQuery' });

export const noticeSchema = z
  .object({
    id: z.string().meta({ example: 'ntc_Qm2x9XkQzLpTnW8r' }),
    kind: z.enum(NOTICE_KINDS).meta({
      description:
        '`source_silent` (no post for much longer than the source’s own rate predicts), `source_failing` (its scans fail), ' +
        '`channel_failing` (a channel’s platform refuses or fails its messages), `channel_disabled` (a channel failing for 24 h was ' +
        'switched off), `quota_warning` (80 % of the period’s alerts used), `quota_exhausted` (100 %).',
    }),
    state: z.enum(NOTICE_STATES).meta({ description: '`open` while the condition holds, `resolved` once it ended.' }),
    source: z.string().nullable().meta({ example: '#btc', description: 'The source it is about (`#tag`, which covers its `$tag` too, or `@user`), or null.' }),
    channel_id: z.string().nullable().meta({ example: null, description: 'The channel it is about: a webhook’s `wh_` id, `bot`, or null.' }),
    message: z.string().meta({ example: 'No post on #btc for 6 h; it usually has one every 20 min.' }),
    opened_at: timestamp,
    resolved_at: timestamp.nullable(),
  })
  .meta({ id: 'Notice' });

export const noticeListSchema = z
  .object({
    data: z.array(noticeSchema).meta({ description: 'Newest first (by `opened_at`, then `id`).' }),
    next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next (older) page; null when there is none.' }),
  })
  .meta({ id: 'NoticeList' });

export type ListNoticesQuery = z.infer<typeof listNoticesQuerySchema>;
export type NoticeBody = z.infer<typeof noticeSchema>;
export type NoticeListBody = z.infer<typeof noticeListSchema>;
