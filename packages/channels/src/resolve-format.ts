import type { ChannelKind } from './channel-config';

export type WebhookFormat = 'auto' | 'discord' | 'slack' | 'json';

const DISCORD_HOSTS = new Set(['discord.com', 'discordapp.com']);

/** `auto` picks Discord for discord.com / discordapp.com hosts, Slack for hooks.slack.com, else json. */
export function resolveFormat(format: WebhookFormat, url: string): Exclude<ChannelKind, 'telegram'> {
  if (format !== 'auto') return format;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return 'json';
  }
  // Discord also serves webhooks on its ptb. and canary. subdomains.
  const registrable = host.split('.').slice(-2).join('.');
  if (DISCORD_HOSTS.has(registrable)) return 'discord';
  if (host === 'hooks.slack.com') return 'slack';
  return 'json';
}

/** What a stored channel sends as, without opening its secrets: the bot is Telegram, a webhook its resolved format. */
export function channelKindOf(row: { kind: 'webhook' | 'bot'; format: WebhookFormat; url: string | null }): ChannelKind {
  return row.kind === 'bot' ? 'telegram' : resolveFormat(row.format, row.url ?? '');
}

/**
 * Whether a channel takes system notices when its own `notices` switch is unset (CONTRACT 8): yes on Discord,
 * Slack and the Telegram bot, where a person reads them; no on json, so no receiver meets a message shape it
 * does not expect. A webhook's format is resolved first, as `auto` may be any of them.
 */
export function noticesByDefault(channel: { kind: 'webhook' | 'bot'; format: WebhookFormat; url: string | null }): boolean {
  return channelKindOf(channel) !== 'json';
}
