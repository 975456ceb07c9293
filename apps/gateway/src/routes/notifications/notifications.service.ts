import type pg from 'pg';
import { generateSigningSecret, noticesByDefault, type NotificationChannelRow } from '@hashwatch/channels';
import { newId, transaction } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';
import { SecretsError, type Cipher } from '@hashwatch/secrets';
import type {
  BotChannelBody,
  BotInput,
  NotificationConfigBody,
  NotificationConfigInput,
  WebhookChannelBody,
  WebhookInput,
} from './notifications.schema';

/** One notification_channels row as the routes read it, secrets still sealed. */
export interface ChannelRow extends NotificationChannelRow {
  token_hint: string | null;
  /** The channel's own notices switch; null: its platform's default. */
  notices: boolean | null;
}

export const CHANNEL_COLUMNS = `id, kind, url, format, bot_name, hashtags, accounts, source_filter, engagement_alerts, template,
  enabled, signing_secret_enc, bot_token_enc, token_hint, chat_id, disabled_reason, notices, max_per_second`;

function scopeOf(row: ChannelRow) {
  return {
    hashtags: row.hashtags ?? [],
    accounts: row.accounts ?? [],
    source_filter: row.source_filter,
    engagement_alerts: row.engagement_alerts,
    template: row.template,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    // What the notifier goes by: the saved switch, else the platform's default for the resolved format.
    notices: row.notices ?? noticesByDefault(row),
  };
}

/**
 * The secret, or null when neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS opens it: one such row must not turn a
 * whole answer into a 500 (GET shows that webhook's signing_secret as null). The start-up check makes this a single damaged or foreign row.
 */
export function openSecret(cipher: Cipher, sealed: string | null): string | null {
  if (sealed === null) return null;
  try {
    return cipher.decrypt(sealed);
  } catch (error) {
    if (error instanceof SecretsError) return null;
    throw error;
  }
}

function toWebhook(row: ChannelRow, cipher: Cipher): WebhookChannelBody {
  return {
    id: row.id,
    url: row.url ?? '',
    format: row.format,
    bot_name: row.bot_name,
    ...scopeOf(row),
    max_per_second: row.max_per_second ?? null,
    // The account's own secret, shown so its receiver can verify signatures; sealed at rest.
    signing_secret: openSecret(cipher, row.signing_secret_enc),
  };
}

function toBot(row: ChannelRow): BotChannelBody {
  return { token_hint: row.token_hint ?? '', chat_id: row.chat_id ?? '', ...scopeOf(row) };
}

/** `...wxyz`: enough to tell two tokens apart, never enough to use one. */
export function tokenHint(token: string): string {
  return `...${token.slice(-4)}`;
}

async function readConfig(db: pg.Pool | pg.PoolClient, cipher: Cipher, userId: string): Promise<NotificationConfigBody> {
  const { rows } = await db.query<ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM notification_channels WHERE user_id = $1 ORDER BY position, created_at, id`,
    [userId],
  );
  const bot = rows.find((row) => row.kind === 'bot');
  return {
    webhooks: rows.filter((row) => row.kind === 'webhook').map((row) => toWebhook(row, cipher)),
    bot: bot ? toBot(bot) : null,
  };
}

export function getNotificationConfig(pool: pg.Pool, cipher: Cipher, userId: string): Promise<NotificationConfigBody> {
  return readConfig(pool, cipher, userId);
}

/** Refuses ids this account does not have, the same id twice, and a signing secret that is not the saved one. */
function checkWebhookIdentities(webhooks: WebhookInput[], existing: Map<string, ChannelRow>, cipher: Cipher): void {
  const seen = new Set<string>();
  webhooks.forEach((webhook, index) => {
    const field = `webhooks.${index}`;
    if (webhook.id !== undefined) {
      // Another account's id reads exactly like an unknown one: nothing about it leaks.
      if (!existing.has(webhook.id)) {
        throw new AppError('invalid_request', `${field}.id: no webhook ${webhook.id} in this account; omit id to add a new webhook`);
      }
      if (seen.has(webhook.id)) throw new AppError('invalid_request', `${field}.id: ${webhook.id} is listed twice`);
      seen.add(webhook.id);
    }
    // null is what GET answers for a secret that cannot be opened: sending it back as is keeps the webhook.
    if (webhook.signing_secret !== undefined && webhook.signing_secret !== null) {
      const saved = webhook.id === undefined ? null : (existing.get(webhook.id)?.signing_secret_enc ?? null);
      const opened = openSecret(cipher, saved);
      if (opened === null || opened !== webhook.signing_secret) {
        throw new AppError('invalid_request', `${field}.signing_secret: read-only; omit it, or send back the value GET /notifications answered`);
      }
    }
  });
}

function scopeValues(channel: WebhookInput | BotInput): unknown[] {
  return [channel.hashtags, channel.accounts, channel.source_filter, channel.engagement_alerts, channel.template, channel.enabled];
}

/**
 * The `notices` value to store on an update: the one sent; else the saved one, unless the webhook moves between a
 * platform that takes notices by default (Discord, Slack) and one that does not (json). A choice made for a chat
 * does not carry over to a machine receiver, nor the other way round: it goes back to null, the new platform's
 * default. An unchanged class of platform keeps it (docs/decisions/system-notices.md, "The `notices` switch").
 */
function noticesToStore(webhook: WebhookInput, saved: ChannelRow | undefined): boolean | null | 'keep' {
  if (webhook.notices !== undefined) return webhook.notices;
  if (saved === undefined) return null;
  const before = noticesByDefault(saved);
  const after = noticesByDefault({ kind: 'webhook', format: webhook.format, url: webhook.url });
  return before === after ? 'keep' : null;
}

async function saveWebhook(
  client: pg.PoolClient,
  cipher: Cipher,
  userId: string,
  webhook: WebhookInput,
  saved: ChannelRow | undefined,
  position: number,
  now: Date,
): Promise<void> {
  if (webhook.id !== undefined) {
    const notices = noticesToStore(webhook, saved);
    // Saving enabled=true is how a client re-enables a channel the platform made us stop: the reason goes. A channel
    // turned back on, or given a new URL, starts its failure clock again (failing_since: the notifier's health).
    await client.query(
      `UPDATE notification_channels
          SET position = $3, url = $4, format = $5, bot_name = $6, hashtags = $7, accounts = $8, source_filter = $9,
              engagement_alerts = $10, template = $11, enabled = $12,
              disabled_reason = CASE WHEN $12 THEN NULL ELSE disabled_reason END, updated_at = $13,
              failing_since = CASE WHEN ($12 AND NOT enabled) OR url IS DISTINCT FROM $4 THEN NULL ELSE failing_since END,
              notices = CASE WHEN $15 THEN notices ELSE $14 END, max_per_second = $16
        WHERE id = $1 AND user_id = $2`,
      [webhook.id, userId, position, webhook.url, webhook.format, webhook.bot_name, ...scopeValues(webhook), now,
        notices === 'keep' ? null : notices, notices === 'keep', webhook.max_per_second ?? null],
    );
    return;
  }
  const id = newId('wh');
  await client.query(
    `INSERT INTO notification_channels (id, user_id, kind, position, url, format, bot_name, hashtags, accounts, source_filter,
                                        engagement_alerts, template, enabled, signing_secret_enc, created_at, updated_at, notices,
                                        max_per_second)
     VALUES ($1, $2, 'webhook', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14, $15, $16)`,
    [id, userId, position, webhook.url, webhook.format, webhook.bot_name, ...scopeValues(webhook), cipher.encrypt(generateSigningSecret()), now,
      webhook.notices ?? null, webhook.max_per_second ?? null],
  );
}

async function saveBot(client: pg.PoolClient, cipher: Cipher, userId: string, bot: BotInput | null, existing: ChannelRow | undefined, now: Date): Promise<void> {
  if (bot === null) {
    if (existing) await client.query('DELETE FROM notification_channels WHERE id = $1', [existing.id]);
    return;
  }
  const sealedToken = bot.token === undefined ? null : cipher.encrypt(bot.token);
  const hint = bot.token === undefined ? null : tokenHint(bot.token);
  if (existing) {
    await client.query(
      `UPDATE notification_channels
          SET chat_id = $2, hashtags = $3, accounts = $4, source_filter = $5, engagement_alerts = $6, template = $7, enabled = $8,
              disabled_reason = CASE WHEN $8 THEN NULL ELSE disabled_reason END,
              failing_since = CASE WHEN ($8 AND NOT enabled) OR chat_id IS DISTINCT FROM $2 OR $9::text IS NOT NULL THEN NULL ELSE failing_since END,
              bot_token_enc = COALESCE($9, bot_token_enc), token_hint = COALESCE($10, token_hint), updated_at = $11,
              notices = COALESCE($12, notices)
        WHERE id = $1`,
      [existing.id, bot.chat_id, ...scopeValues(bot), sealedToken, hint, now, bot.notices ?? null],
    );
    return;
  }
  if (sealedToken === null) throw new AppError('invalid_request', 'bot.token: required when adding the bot channel');
  await client.query(
    `INSERT INTO notification_channels (id, user_id, kind, position, chat_id, hashtags, accounts, source_filter, engagement_alerts,
                                        template, enabled, bot_token_enc, token_hint, created_at, updated_at, notices)
     VALUES ($1, $2, 'bot', 0, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13)`,
    [newId('bot'), userId, bot.chat_id, ...scopeValues(bot), sealedToken, hint, now, bot.notices ?? null],
  );
}

/**
 * Replaces the whole configuration in one transaction, with the account row locked so concurrent PUTs apply
 * one after another: a refused PUT (400, 403) changes nothing. Webhooks missing from the body are deleted,
 * and their delivery log with them (deliveries cascade).
 */
export async function putNotificationConfig(
  pool: pg.Pool,
  cipher: Cipher,
  userId: string,
  input: NotificationConfigInput,
  now: Date,
): Promise<NotificationConfigBody> {
  return transaction(pool, async (client) => {
    const { rows: account } = await client.query<{ webhooks_limit: number }>('SELECT webhooks_limit FROM users WHERE id = $1 FOR UPDATE', [userId]);
    const limit = account[0]?.webhooks_limit;
    if (limit === undefined) throw new AppError('unauthorized', 'the account no longer exists');
    const { rows } = await client.query<ChannelRow>(`SELECT ${CHANNEL_COLUMNS} FROM notification_channels WHERE user_id = $1`, [userId]);
    const existingWebhooks = new Map(rows.filter((row) => row.kind === 'webhook').map((row) => [row.id, row]));
    const existingBot = rows.find((row) => row.kind === 'bot');

    checkWebhookIdentities(input.webhooks, existingWebhooks, cipher);
    // Before the limit check, so an invalid body answers 400 whatever its size; a 403 rolls the bot back.
    await saveBot(client, cipher, userId, input.bot, existingBot, now);
    if (input.webhooks.length > limit) {
      throw new AppError('plan_limit_reached', `the plan allows ${limit} webhook channel${limit === 1 ? '' : 's'}; this configuration has ${input.webhooks.length}`);
    }

    const kept = input.webhooks.flatMap((webhook) => (webhook.id === undefined ? [] : [webhook.id]));
    await client.query(`DELETE FROM notification_channels WHERE user_id = $1 AND kind = 'webhook' AND NOT (id = ANY($2::text[]))`, [userId, kept]);
    for (const [position, webhook] of input.webhooks.entries()) {
      await saveWebhook(client, cipher, userId, webhook, webhook.id === undefined ? undefined : existingWebhooks.get(webhook.id), position, now);
    }
    return readConfig(client, cipher, userId);
  });
}
