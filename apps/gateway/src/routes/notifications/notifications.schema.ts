import { z } from 'zod';
import { resolveFormat } from '@hashwatch/channels';
import { createAccountTrackSchema } from '../accounts/accounts.schema';
import { createTrackSchema } from '../tracks/tracks.schema';

export const WEBHOOK_FORMATS = ['auto', 'discord', 'slack', 'json'] as const;
export const SOURCE_FILTERS = ['all', 'hashtags', 'accounts'] as const;
export const MAX_URL_LENGTH = 2048;
export const MAX_TEMPLATE_LENGTH = 2000;
export const MAX_BOT_NAME_LENGTH = 80;
export const MAX_SCOPE_ENTRIES = 100;
/** Bounds the work of one PUT; the plan's `webhooks_limit` is the real cap (403 past it). */
export const MAX_WEBHOOKS_IN_BODY = 100;
export const DEFAULT_BOT_NAME = 'Hashwatch';
/** The highest `max_per_second` a json webhook may set: past it, a ceiling means nothing to the notifier. */
export const MAX_PER_SECOND_LIMIT = 100_000;

const WEBHOOK_ID = /^wh_[A-Za-z0-9_-]{1,64}$/;
// BotFather's shape `<bot id>:<secret>`; @hashwatch/channels refuses anything else as a URL path segment.
const BOT_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{4,200}$/;
// Telegram: a numeric chat id (groups and channels are negative and exceed 32 bits) or @channelusername (5-32 chars).
const CHAT_ID = /^(-?[1-9]\d{0,19}|@[A-Za-z][A-Za-z0-9_]{4,31})$/;

/** Deduplicates case-insensitively, keeping the first spelling's position, and stores lower-case. */
function lowerUnique(values: string[]): string[] {
  return [...new Set(values.map((value) => value.toLowerCase()))];
}

// Scope entries follow the same character rules as POST /tracks and POST /accounts.
// The generator would print the hashtag regex's /u flag into the pattern.
const scopeHashtag = createTrackSchema.shape.hashtag.meta({ pattern: '^[\\p{L}\\p{M}\\p{N}_]{1,100}$', example: 'btc' });
const scopeFields = {
  hashtags: z
    .array(scopeHashtag)
    .max(MAX_SCOPE_ENTRIES)
    .default([])
    .transform(lowerUnique)
    .meta({ example: ['btc'], description: `Hashtags without \`#\`, at most ${MAX_SCOPE_ENTRIES}; stored lower-case and deduplicated. Default [].` }),
  accounts: z
    .array(createAccountTrackSchema.shape.username)
    .max(MAX_SCOPE_ENTRIES)
    .default([])
    .transform(lowerUnique)
    .meta({ example: [], description: `Accounts without \`@\`, at most ${MAX_SCOPE_ENTRIES}; stored lower-case and deduplicated. Default [].` }),
  source_filter: z
    .enum(SOURCE_FILTERS, { error: `must be one of ${SOURCE_FILTERS.join(', ')}` })
    .default('all')
    .meta({ description: 'Which kind of source alerts: `all`, `hashtags` or `accounts`. Default `all`.' }),
  engagement_alerts: z.boolean().default(false).meta({ description: 'Alert on each new retweet, like or reply on engagement-tracked posts. Default false.' }),
  template: z
    .string()
    .max(MAX_TEMPLATE_LENGTH, `must be at most ${MAX_TEMPLATE_LENGTH} characters`)
    .default('')
    .meta({ description: 'Custom message with placeholders {source} {author} {name} {text} {url} {hashtag} {account}; empty means the default card.' }),
  enabled: z
    .boolean()
    .default(true)
    .meta({ description: 'Default true. Saving `true` clears `disabled_reason`; saving `false` keeps it.' }),
};

const noticesInput = z
  .boolean({ error: 'must be true or false' })
  .optional()
  .meta({
    description:
      'Whether system notices (`GET /v1/notices`) are sent to this channel. Omitted: the saved choice is kept, and a channel that never ' +
      'had one follows its platform: on for Discord, Slack and the bot, off for `json`. A webhook moved between `json` and Discord or ' +
      'Slack (by `format`, or `url` for `auto`) without `notices` drops its saved choice for the new platform’s default.',
  });

const readOnlyDisabledReason = z
  .string()
  .nullable()
  .optional()
  .meta({ description: 'Read-only: accepted so that a GET answer can be sent back as is, and ignored.' });

function webhookUrl(allowPrivateNetworks: boolean) {
  const schemes = allowPrivateNetworks ? 'https: (or http:, allowed on this deployment)' : 'https:';
  return z
    .string()
    .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
    .superRefine((value, ctx) => {
      let url: URL;
      try {
        // URL() would quietly trim surrounding spaces; a stored address must be exactly what is dialled.
        if (/\s/.test(value)) throw new Error('whitespace');
        url = new URL(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: `must be an absolute ${schemes} URL` });
        return;
      }
      if (url.protocol !== 'https:' && !(allowPrivateNetworks && url.protocol === 'http:')) {
        ctx.addIssue({ code: 'custom', message: `must be an ${schemes} URL` });
      }
    })
    .meta({
      example: 'https://discord.com/api/webhooks/123/abc',
      description: `Absolute ${schemes} address, at most ${MAX_URL_LENGTH} characters. Only public addresses are reached.`,
    });
}

/** The PUT body. `http:` URLs are accepted only where `WEBHOOK_ALLOW_PRIVATE_NETWORKS` is on. */
export function notificationConfigInputSchema(options: { allowPrivateNetworks: boolean }) {
  const webhookInput = z
    .strictObject({
      id: z
        .string()
        .regex(WEBHOOK_ID, 'must be a wh_ id from GET /notifications')
        .optional()
        .meta({ description: 'Keep an existing webhook (and its signing secret). Omit for a new one. An id this account does not have answers 400.' }),
      url: webhookUrl(options.allowPrivateNetworks),
      format: z
        .enum(WEBHOOK_FORMATS, { error: `must be one of ${WEBHOOK_FORMATS.join(', ')}` })
        .default('auto')
        .meta({ description: '`auto` (Discord for discord.com / discordapp.com, Slack for hooks.slack.com, else `json`), `discord`, `slack` or `json`. Default `auto`.' }),
      bot_name: z
        .string()
        .min(1, `must be 1-${MAX_BOT_NAME_LENGTH} characters`)
        .max(MAX_BOT_NAME_LENGTH, `must be 1-${MAX_BOT_NAME_LENGTH} characters`)
        .default(DEFAULT_BOT_NAME)
        .meta({ description: `Name shown on Discord and Slack messages, 1-${MAX_BOT_NAME_LENGTH} characters. Default "${DEFAULT_BOT_NAME}".` }),
      ...scopeFields,
      notices: noticesInput,
      signing_secret: z
        .string()
        .nullable()
        .optional()
        .meta({ description: 'Read-only: may be sent back as GET answered it (null included); any other value answers 400. Hashwatch generates every secret.' }),
      disabled_reason: readOnlyDisabledReason,
      max_per_second: z
        .number({ error: `must be a whole number from 1 to ${MAX_PER_SECOND_LIMIT}, or null` })
        .int(`must be a whole number from 1 to ${MAX_PER_SECOND_LIMIT}, or null`)
        .min(1, `must be a whole number from 1 to ${MAX_PER_SECOND_LIMIT}, or null`)
        .max(MAX_PER_SECOND_LIMIT, `must be a whole number from 1 to ${MAX_PER_SECOND_LIMIT}, or null`)
        .nullable()
        .optional()
        .meta({
          example: null,
          description:
            'A `json` webhook only: the most messages a second its receiver wants, over every notifier replica. Null or omitted: none; ' +
            'alerts go as fast as the receiver answers, as many at once as it takes while it answers 2xx quickly, fewer when it slows down, ' +
            'answers 429 (its `Retry-After` is honoured) or fails. Discord, Slack and the bot keep their platforms’ published limits.',
        }),
    })
    .superRefine((webhook, ctx) => {
      if (webhook.max_per_second != null && resolveFormat(webhook.format, webhook.url) !== 'json') {
        ctx.addIssue({ code: 'custom', path: ['max_per_second'], message: 'applies to json webhooks only: Discord and Slack are sent within their published limits; send null' });
      }
    })
    .meta({ id: 'WebhookChannelInput' });

  const botInput = z
    .strictObject({
      token: z
        .string()
        .regex(BOT_TOKEN, 'must be a Telegram bot token as BotFather issues it (<digits>:<letters, digits, _ or ->)')
        .optional()
        .meta({ description: 'Write-only. Required for a new bot; omitted, the saved token is kept.', example: '123456789:AAHn7ZkP2yQ-exampleToken_wxyz' }),
      chat_id: z
        .string({ error: 'must be a string: the numeric chat id in quotes, or @channelusername' })
        .regex(CHAT_ID, 'must be a numeric chat id (as a string) or @channelusername')
        .meta({ example: '-1001234567890', description: 'A numeric chat id as a string (ids exceed 32 bits), or `@channelusername`.' }),
      ...scopeFields,
      notices: noticesInput,
      token_hint: z.string().optional().meta({ description: 'Read-only: accepted so that a GET answer can be sent back as is, and ignored.' }),
      disabled_reason: readOnlyDisabledReason,
    })
    .meta({ id: 'BotChannelInput' });

  return z
    .strictObject({
      webhooks: z
        .array(webhookInput)
        .max(MAX_WEBHOOKS_IN_BODY)
        .default([])
        .meta({ description: 'Every webhook channel; any not listed is deleted with its delivery log. Omitted: none.' }),
      bot: botInput.nullable().default(null).meta({ description: 'The bot channel; null (or omitted) removes it.' }),
    })
    .meta({ id: 'NotificationConfigInput' });
}

export type NotificationConfigInput = z.output<ReturnType<typeof notificationConfigInputSchema>>;
export type WebhookInput = NotificationConfigInput['webhooks'][number];
export type BotInput = NonNullable<NotificationConfigInput['bot']>;

const disabledReason = z
  .string()
  .nullable()
  .meta({ example: null, description: 'Null, or why Hashwatch stopped delivering (e.g. Discord answered 404: the webhook was deleted). A PUT with `enabled: true` clears it.' });

const scopeOutputFields = {
  hashtags: z.array(z.string()).meta({ example: ['btc'], description: 'Lower-case, without `#`. Empty hashtags and accounts: every source.' }),
  accounts: z.array(z.string()).meta({ example: [], description: 'Lower-case, without `@`.' }),
  source_filter: z.enum(SOURCE_FILTERS),
  engagement_alerts: z.boolean(),
  template: z.string(),
  enabled: z.boolean(),
  disabled_reason: disabledReason,
  notices: z.boolean().meta({
    description: 'Whether system notices are sent to this channel: the saved choice, else the platform’s default (on for Discord, Slack and the bot, off for `json`).',
  }),
};

export const webhookChannelSchema = z
  .object({
    id: z.string().meta({ example: 'wh_3q2x9XkQzLpTnW8r' }),
    url: z.string().meta({ example: 'https://discord.com/api/webhooks/123/abc' }),
    format: z.enum(WEBHOOK_FORMATS),
    bot_name: z.string().meta({ example: DEFAULT_BOT_NAME }),
    ...scopeOutputFields,
    max_per_second: z.number().int().nullable().meta({ example: null, description: 'A `json` webhook’s ceiling on messages a second; null: none.' }),
    signing_secret: z.string().nullable().meta({
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      description:
        'Standard Webhooks secret of the `json` format (`webhook-signature` header); kept for the life of the webhook. ' +
        "Null when this deployment can no longer open the stored secret (it was sealed with a SECRETS_KEY the server no longer has): " +
        'the webhook is then not delivered to; save it without its `id` to get a new secret.',
    }),
  })
  .meta({ id: 'WebhookChannel' });

export const botChannelSchema = z
  .object({
    token_hint: z.string().meta({ example: '...wxyz', description: 'The last 4 characters of the bot token, which is never shown.' }),
    chat_id: z.string().meta({ example: '-1001234567890' }),
    ...scopeOutputFields,
  })
  .meta({ id: 'BotChannel' });

export const notificationConfigSchema = z
  .object({
    webhooks: z.array(webhookChannelSchema).meta({ description: 'In the order they were saved.' }),
    bot: botChannelSchema.nullable(),
  })
  .meta({ id: 'NotificationConfig' });

export type NotificationConfigBody = z.infer<typeof notificationConfigSchema>;
export type WebhookChannelBody = z.infer<typeof webhookChannelSchema>;
export type BotChannelBody = z.infer<typeof botChannelSchema>;

export const notificationTestSchema = z
  .discriminatedUnion(
    'channel',
    [
      z.strictObject({
        channel: z.literal('webhook'),
        id: z.string().regex(WEBHOOK_ID, 'must be a wh_ id from GET /notifications').meta({ example: 'wh_3q2x9XkQzLpTnW8r' }),
      }),
      z.strictObject({ channel: z.literal('bot') }),
    ],
    { error: 'must be "webhook" (with an id) or "bot"' },
  )
  .meta({ id: 'NotificationTest', description: '`{"channel":"webhook","id":"wh_..."}` or `{"channel":"bot"}`.' });

export const notificationTestResultSchema = z
  .object({
    delivered: z.literal(true),
    status: z.number().int().meta({ example: 204, description: 'The HTTP status the target answered.' }),
  })
  .meta({ id: 'NotificationTestResult' });

export type NotificationTest = z.infer<typeof notificationTestSchema>;
