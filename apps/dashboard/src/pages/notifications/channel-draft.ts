import { noticesByDefault, resolveFormat } from '@hashwatch/channels/resolve-format';
import { HashwatchError, type Schemas } from '../../api/client';

/**
 * A channel's `notices` as GET answered it (the saved switch, else its platform's default) and the default of the
 * platform it was saved for. The draft's own `notices` is set only once the switch is touched in this edit: saving
 * without it keeps what is saved, so a save that merely passes through does not pin the platform's default.
 */
export interface SavedNotices {
  value: boolean;
  platformDefault: boolean;
}

export type WebhookDraft = Schemas['WebhookChannelInput'] & {
  /** React key of a draft, stable before the server gives it an id. */
  key: string;
  signing_secret?: string | null;
  saved_notices?: SavedNotices;
};
export type BotDraft = NonNullable<Schemas['NotificationConfigInput']['bot']> & { token_hint?: string; saved_notices?: SavedNotices };

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
    engagement_alerts: false, template: '', enabled: true, max_per_second: null,
  };
}

/** A new bot channel with the API's defaults; the token must be given once. */
export function newBot(): BotDraft {
  return { token: '', chat_id: '', hashtags: [], accounts: [], source_filter: 'all', engagement_alerts: false, template: '', enabled: true };
}

/** Whether a webhook's platform, as the API resolves its format and address, takes system notices by default. */
function webhookDefault(draft: Pick<WebhookDraft, 'format' | 'url'>): boolean {
  return noticesByDefault({ kind: 'webhook', format: draft.format, url: draft.url });
}

const BOT_DEFAULT = noticesByDefault({ kind: 'bot', format: 'auto', url: null });

/**
 * What the API applies to a channel saved without `notices`: the saved value, unless the webhook now resolves to a
 * platform with the other default (json against Discord, Slack), where the saved value is dropped for the new
 * platform's default; a new channel gets its platform's default.
 */
export function noticesUnlessSwitched(draft: WebhookDraft | BotDraft): boolean {
  const platformDefault = 'url' in draft ? webhookDefault(draft) : BOT_DEFAULT;
  const saved = draft.saved_notices;
  return saved && saved.platformDefault === platformDefault ? saved.value : platformDefault;
}

/** The saved configuration as editable drafts; no channel's notices switch counts as touched yet. */
export function draftsOf(config: Schemas['NotificationConfig']): Drafts {
  return {
    webhooks: config.webhooks.map(({ notices, ...channel }) => ({
      ...channel, key: channel.id, saved_notices: { value: notices, platformDefault: webhookDefault(channel) },
    })),
    bot: config.bot ? (({ notices, ...bot }) => ({ ...bot, token: '', saved_notices: { value: notices, platformDefault: BOT_DEFAULT } }))(config.bot) : null,
  };
}

/** `notices` when this edit switched it to something other than what saving without it gives; else nothing. */
function switched(draft: WebhookDraft | BotDraft): { notices?: boolean } {
  return draft.notices === undefined || draft.notices === noticesUnlessSwitched(draft) ? {} : { notices: draft.notices };
}

/**
 * The PUT body: every field of every channel; read-only fields (signing secret, disabled reason, token hint) left
 * out, the bot token only when one was typed (an empty one keeps the saved token), and `notices` only when switched
 * in this edit (omitted, the API keeps the saved choice or applies the platform's default).
 */
export function inputOf(drafts: Drafts): Schemas['NotificationConfigInput'] {
  const webhooks = drafts.webhooks.map((draft) => {
    const { key: _key, signing_secret: _secret, disabled_reason: _reason, saved_notices: _saved, notices: _notices, ...channel } = draft;
    // A ceiling is a json receiver's: a webhook now pointed at Discord or Slack drops it, as its field is hidden.
    const maxPerSecond = resolveFormat(draft.format, draft.url) === 'json' ? (draft.max_per_second ?? null) : null;
    return { ...channel, max_per_second: maxPerSecond, ...switched(draft) };
  });
  if (!drafts.bot) return { webhooks, bot: null };
  const { token, token_hint: _hint, disabled_reason: _reason, saved_notices: _saved, notices: _notices, ...bot } = drafts.bot;
  return { webhooks, bot: { ...bot, ...(token ? { token } : {}), ...switched(drafts.bot) } };
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
