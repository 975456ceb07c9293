import { z } from 'zod';

const count = (description: string) => z.number().int().min(0).meta({ description });
const share = (description: string, example: number) => z.number().min(0).meta({ example, description });

const upstreamSchema = z
  .object({
    reads: share('X posts read on your behalf this period (posts in `data` and `includes` of each answer, as X bills them): equal to `upstream_posts_read`.', 1234.5),
    requests: share('Search requests X answered on your behalf this period (failed calls are neither billed nor counted).', 310.25),
    by_source: z
      .array(
        z.object({
          source: z.string().meta({ example: '#btc', description: 'The source: `#tag` (its `#tag` and `$tag` posts) or `@user`, lower-case.' }),
          reads: share('Your share of the posts read for this source.', 800.5),
          requests: share('Your share of the requests made for this source.', 120.75),
        }),
      )
      .meta({
        description:
          'Per source, most read first (then by source). Sources you no longer track stay listed for the period: their cost was real. ' +
          'A search serves many sources at once: what X answered it is split evenly across its sources, then each source’s share evenly ' +
          'across the accounts tracking it, so figures can be fractional (to the millionth) and add up to `reads` and `requests`.',
      }),
  })
  .meta({ description: 'Upstream (X API) cost attributed to you this period, in total and per source.' });
const millis = (example: number, description: string) => z.number().int().nullable().meta({ example, description: `${description} Null when the period has no sample.` });

/** Latency percentiles of the current period (`latencyOf` of @hashwatch/feed computes them). */
const latencySchema = z
  .object({
    detect_p50_ms: millis(2_400, 'Median of `detected_at` − `posted_at` over the sampled feed items that have a `posted_at`.'),
    detect_p95_ms: millis(9_800, '95th percentile of the same.'),
    deliver_p50_ms: millis(350, 'Median of `delivered_at` − `detected_at` over the sampled items’ delivered deliveries, one per channel.'),
    deliver_p95_ms: millis(1_900, '95th percentile of the same.'),
  })
  .meta({
    id: 'UsageLatency',
    description:
      'How fast posts reached you this period, in milliseconds, interpolated between samples (percentile_cont), over the period’s ' +
      'most recent 10,000 feed items (all of them while the period holds fewer) and their deliveries. ' +
      '`posted_at` is whole seconds, so detection delays can read up to 1 s long; items caught up after an outage count. ' +
      'Each item’s own `delivered_at` per channel is in `GET /notifications/deliveries?feed_item=`.',
  });

export const usageSchema = z
  .object({
    period_start: z.string().meta({ example: '2026-11-01T00:00:00.000Z', description: 'Start of the current billing period.' }),
    period_end: z.string().meta({ example: '2026-12-01T00:00:00.000Z', description: 'End of the current billing period.' }),
    alerts_used: count('Alerts used this period: one per stored feed item, of any type.'),
    alerts_limit: count('Alerts per period.'),
    alerts_remaining: count('alerts_limit minus alerts_used, never below 0. At 0 nothing new is stored or delivered until the period resets.'),
    hashtags_used: count('Hashtags tracked.'),
    hashtags_limit: count('Hashtags allowed.'),
    accounts_used: count('X accounts tracked.'),
    accounts_limit: count('X accounts allowed.'),
    engagement_used: count('Tracks and accounts with engagement tracking on, combined.'),
    engagement_limit: count('Engagement-tracked sources allowed.'),
    webhooks_used: count('Webhook channels saved.'),
    webhooks_limit: count('Webhook channels allowed.'),
    upstream_posts_read: z.number().min(0).meta({
      example: 1234.5,
      description:
        'X posts read on your behalf this period, shared reads split across accounts (so it can be fractional); ' +
        'the same figure as `upstream.reads`, kept for existing clients.',
    }),
    alerts_per_day: z
      .array(
        z.object({
          date: z.string().meta({ example: '2026-11-26', description: 'A UTC day.' }),
          alerts: count('Feed items stored that day.'),
        }),
      )
      .meta({
        description:
          'Feed items stored per UTC day of the current period, from its start (at most the last 92 days) to today, oldest first; ' +
          'days without any are 0.',
      }),
    upstream: upstreamSchema,
    latency: latencySchema,
  })
  .meta({ id: 'Usage', description: 'Usage of the current billing period against the account’s limits.' });

export type UsageBody = z.infer<typeof usageSchema>;
