import { HashwatchError, type Schemas } from '../../api/client';

export type WebhookDraft = Schemas['WebhookChannelInput'] & {
  /** React key of a draft, stable before the server gives it an id. */
  key: string;
  signing_secret?: string | null;
};
export type BotDraft = NonNullable<Schemas['NotificationConfigInput']['bot']> & { token_hint?: string };

export interface Drafts {
  webhooks: WebhookDraft[];
  bot: BotDraft | null;
}

let counter = 0;
const newKey = () => `draft-${++counter}`;

/** A new webhook channel with the API's defaults. */
export function newWebhook(): WebhookDraft {
  return {
    key: newKey(), url: '', format: 'auto', bot_name: 'Hashwatch', hashtags: [], accounts: [], source_filter: 'all',
    engagement_alerts: false, template: '', enabled: true,
  };
}

/** A new bot channel with the API's defaults; the token must be given once. */
export function newBot(): BotDraft {
  return { token: '', chat_id: '', hashtags: [], accounts: [], source_filter: 'all', engagement_alerts: false, template: '', enabled: true };
}

/**
 * Whether a webhook takes system notices while its switch is unset, as the API decides it: the format, or for
 * `auto` the address (Discord for discord.com / discordapp.com, Slack for hooks.slack.com); JSON receivers do not.
 */
export function noticesByDefault(draft: Pick<WebhookDraft, 'format' | 'url'>): boolean {
  if (draft.format === 'discord' || draft.format === 'slack') return true;
  if (draft.format === 'json') return false;
  let host: string;
  try {
    host = new URL(draft.url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return false;
  }
  const registrable = host.split('.').slice(-2).join('.');
  return registrable === 'discord.com' || registrable === 'discordapp.com' || host === 'hooks.slack.com';
}

/** The saved configuration as editable drafts. */
export function draftsOf(config: Schemas['NotificationConfig']): Drafts {
  return {
    webhooks: config.webhooks.map((channel) => ({ ...channel, key: channel.id })),
    bot: config.bot ? { ...config.bot, token: '' } : null,
  };
}

/**
 * The PUT body: every field of every channel; read-only fields (signing secret, disabled reason, token hint) left
 * out, and the bot token only when one was typed (an empty one keeps the saved token).
 */
export function inputOf(drafts: Drafts): Schemas['NotificationConfigInput'] {
  const webhooks = drafts.webhooks.map(({ key: _key, signing_secret: _secret, disabled_reason: _reason, ...channel }) => channel);
  if (!drafts.bot) return { webhooks, bot: null };
  const { token, token_hint: _hint, disabled_reason: _reason, ...bot } = drafts.bot;
  return { webhooks, bot: token ? { ...bot, token } : bot };
}

/** Where the API's complaint belongs: a webhook's field (by index), the bot's field, or the form as a whole. */
export interface ChannelProblem {
  channel: { webhook: number } | 'bot' | null;
  field: string | null;
  message: string;
}

/** Reads `webhooks.1.url: Invalid URL` style messages (the API names the field of the body it refuses). */
export function channelProblem(error: unknown, describe: (error: unknown) => string): ChannelProblem {
  if (error instanceof HashwatchError && error.code === 'invalid_request' && error.field) {
    const message = error.message.slice(error.message.indexOf(':') + 1).trim();
    const webhook = /^webhooks\.(\d+)\.(\w+)/.exec(error.field);
    if (webhook) return { channel: { webhook: Number(webhook[1]) }, field: webhook[2] ?? null, message };
    const bot = /^bot\.(\w+)/.exec(error.field);
    if (bot) return { channel: 'bot', field: bot[1] ?? null, message };
  }
  return { channel: null, field: null, message: describe(error) };
}
