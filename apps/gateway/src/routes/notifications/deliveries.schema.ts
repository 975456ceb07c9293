import { z } from 'zod';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export const DEFAULT_DELIVERIES_LIMIT = 20;
export const MAX_DELIVERIES_LIMIT = 100;

const limitMessage = `must be an integer from 1 to ${MAX_DELIVERIES_LIMIT}`;
const timestamp = z.string().meta({ example: '2026-11-22T01:24:59.123Z' });

export const listDeliveriesQuerySchema = z
  .strictObject({
    status: z
      .enum(DELIVERY_STATUSES, { error: `must be one of ${DELIVERY_STATUSES.join(', ')}` })
      .optional()
      .meta({ description: 'Only deliveries in this state. Omitted: every state.' }),
    channel: z
      .string()
      .regex(/^(bot|wh_[A-Za-z0-9_-]{1,64})$/, 'must be a wh_ id or bot')
      .optional()
      .meta({ example: 'wh_3q2x9XkQzLpTnW8r', description: 'Only deliveries to this webhook (`wh_...`) or to the bot channel (`bot`). A webhook this account does not have lists nothing.' }),
    feed_item: z
      .string()
      .regex(/^post_[A-Za-z0-9_-]{1,64}$/, 'must be a post_ id')
      .optional()
      .meta({
        example: 'post_3q2x9XkQzLpTnW8r',
        description: 'Only the deliveries of this feed item: one per channel it was routed to, with each channel’s `delivered_at`. Another account’s item lists nothing.',
      }),
    limit: z.coerce
      .number({ error: limitMessage })
      .int(limitMessage)
      .min(1, limitMessage)
      .max(MAX_DELIVERIES_LIMIT, limitMessage)
      .default(DEFAULT_DELIVERIES_LIMIT)
      .meta({ description: `Items per page: 1 to ${MAX_DELIVERIES_LIMIT}, default ${DEFAULT_DELIVERIES_LIMIT}.` }),
    cursor: z
      .string()
      .max(300, 'malformed; pass next_cursor exactly as it was returned')
      .optional()
      .meta({ description: 'Opaque: the `next_cursor` of the previous page, sent with the same `status`, `channel` and `feed_item` (`limit` may change).' }),
  })
  .meta({ id: 'ListDeliveriesQuery' });

export const deliverySchema = z
  .object({
    id: z.string().meta({ example: 'dlv_Qm2x9XkQzLpTnW8r' }),
    channel_id: z.string().meta({ example: 'wh_3q2x9XkQzLpTnW8r', description: 'The webhook’s `wh_` id, or `bot` for the bot channel.' }),
    feed_item_id: z.string().meta({ example: 'post_3q2x9XkQzLpTnW8r', description: 'The alerted feed item (`GET /posts`).' }),
    status: z.enum(DELIVERY_STATUSES).meta({
      description:
        '`pending` (queued or retrying), `delivered`, `failed` (gave up; see `last_error`), or `skipped`: never sent, for good, ' +
        'because the item is late (`late`) and the channel is a chat platform (Discord, Slack, Telegram); `last_error` says so.',
    }),
    late: z.boolean().meta({
      description:
        'The item was detected more than the deployment’s alert age limit (default 15 minutes) after its `posted_at`, e.g. caught up after an outage: ' +
        'json channels get it with `late: true` in the message, chat platforms not at all (`skipped`).',
    }),
    attempts: z.number().int().meta({ description: 'Requests made to the target so far, retries and manual retries included.' }),
    last_error: z.string().nullable().meta({ description: 'Why the last attempt failed; kept after a manual retry until the next attempt.' }),
    last_status: z.number().int().nullable().meta({ description: 'HTTP status of the last answer; null when none answered.' }),
    created_at: timestamp,
    delivered_at: timestamp.nullable().meta({ description: 'When this channel’s target accepted it (a digest: when the digest was accepted); null unless delivered.' }),
    latency_ms: z.number().int().nullable().meta({ example: 1840, description: '`delivered_at` minus the feed item’s `detected_at`; null until delivered.' }),
    next_attempt_at: timestamp.nullable().meta({ description: 'When the next attempt is due, while pending.' }),
  })
  .meta({ id: 'Delivery' });

export const deliveryListSchema = z
  .object({
    data: z.array(deliverySchema).meta({ description: 'Newest first (by `created_at`, then `id`).' }),
    next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next (older) page; null when there is none.' }),
  })
  .meta({ id: 'DeliveryList' });

export const deliveryIdParamsSchema = z.object({ id: z.string().max(100).meta({ example: 'dlv_Qm2x9XkQzLpTnW8r' }) });

export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuerySchema>;
export type DeliveryBody = z.infer<typeof deliverySchema>;
export type DeliveryListBody = z.infer<typeof deliveryListSchema>;
