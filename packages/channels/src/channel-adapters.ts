import type { ChannelAdapter } from './channel-adapter';
import type { ChannelKind } from './channel-config';
import { discordChannel } from './discord/discord.channel';
import { jsonChannel } from './json/json.channel';
import { slackChannel } from './slack/slack.channel';
import { telegramChannel } from './telegram/telegram.channel';

/** Every channel kind's adapter, each taking its own kind's config; the compiler fails here when a kind has none. */
export const channelAdapters = {
  discord: discordChannel,
  slack: slackChannel,
  json: jsonChannel,
  telegram: telegramChannel,
} satisfies { [K in ChannelKind]: ChannelAdapter<K> };

// The same map seen through its mapped type, so that indexing it with a kind K gives ChannelAdapter<K>.
const adapters: { [K in ChannelKind]: ChannelAdapter<K> } = channelAdapters;

export function adapterFor<K extends ChannelKind>(kind: K): ChannelAdapter<K> {
  return adapters[kind];
}
