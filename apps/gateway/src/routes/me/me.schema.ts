import { z } from 'zod';
import { subscriptionStatusSchema } from '@hashwatch/accounts';

const timestamp = z.string().meta({ example: '2026-11-22T01:24:59.123Z' });
const limit = (description: string) => z.number().int().meta({ description });

export const meSchema = z
  .object({
    id: z.string().meta({ example: 'usr_3q2x9XkQzLpTnW8r' }),
    email: z.string().meta({ example: 'ann@example.com' }),
    plan: z.string().meta({ example: 'pro', description: 'Plan id: `starter`, `pro` or `business`.' }),
    subscription: z.object({
      status: subscriptionStatusSchema,
      current_period_start: timestamp,
      current_period_end: timestamp,
    }),
    hashtags_limit: limit('Hashtags that can be tracked.'),
    accounts_limit: limit('X accounts that can be tracked.'),
    engagement_limit: limit('Tracks and accounts with engagement tracking on, combined.'),
    webhooks_limit: limit('Webhook channels.'),
    alerts_limit: limit('Alerts (stored feed items) per billing period.'),
    scan_interval_seconds: limit('How often each source is scanned.'),
    engagement_refresh_seconds: limit('How often engagement of posts under 48 h is refreshed.'),
    rate_limit_per_minute: limit('Requests per minute for this key.'),
    two_factor_enabled: z.boolean(),
    created_at: timestamp,
  })
  .meta({
    id: 'Me',
    description: 'The account and the limits it lives by: a snapshot of its plan taken at creation, plan change or `POST /me/resync-limits`.',
  });

export const accountDeletedSchema = z.object({ deleted: z.literal(true) }).meta({ id: 'AccountDeleted' });

export type MeBody = z.infer<typeof meSchema>;
