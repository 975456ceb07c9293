import type { ChannelAdapter, ChannelKind } from './channel-adapter';
import { discordChannel } from './discord/discord.channel';
import { jsonChannel } from './json/json.channel';
import { slackChannel } from './slack/slack.channel';
import { telegramChannel } from './telegram/telegram.channel';

/** Every channel kind's adapter; the compiler fails here when a kind has none. */
export const channelAdapters = {
  discord: discordChannel,
  slack: slackChannel,
  json: jsonChannel,
  telegram: telegramChannel,
} satisfies Record<ChannelKind, ChannelAdapter>;

export function adapterFor(kind: ChannelKind): ChannelAdapter {
  return channelAdapters[kind];
}
