import type { ChannelConfig } from '@hashwatch/channels';
import { keySlot } from '@hashwatch/testing';
import { DEFAULT_PACE } from '../notifier-options';
import { destinationOf } from './destination-pace';
import { drainKeys } from './drain-lease';

// A script on a Redis Cluster may only touch keys of one slot: the keys each of ours reads together must share one.
const slotsOf = (keys: string[]) => new Set(keys.map(keySlot));

describe('the notifier keys on a Redis Cluster', () => {
  it('keeps the four keys the drain lease script reads in one slot per channel, and channels apart', () => {
    const slots = ['wh_a', 'wh_b', 'wh_c', 'wh_d'].map((channel) => {
      const keys = drainKeys('hw', channel);
      const shared = slotsOf([keys.lease, keys.woken, keys.digest, keys.retrying]);
      expect(shared.size).toBe(1);
      return [...shared][0];
    });
    expect(new Set(slots).size).toBe(4);
  });

  it('keeps the block key and every bucket the pace script reads in one slot per destination', () => {
    const configs: ChannelConfig[] = [
      { kind: 'discord', url: 'https://discord.com/api/webhooks/1/a', botName: 'Hashwatch', template: '' },
      { kind: 'slack', url: 'https://hooks.slack.com/services/T/B/x', botName: 'Hashwatch', template: '' },
      { kind: 'json', url: 'https://example.com/hook', signingSecret: 'whsec_test', template: '' },
      // A group: chat buckets, group buckets and the bot's bucket, read in one script.
      { kind: 'telegram', botToken: '1:token', chatId: '-1001234567890', template: '' },
      { kind: 'telegram', botToken: '1:token', chatId: '42', template: '' },
    ];
    for (const config of configs) {
      const destination = destinationOf(config, DEFAULT_PACE, 'hw');
      expect(slotsOf([destination.blockKey, destination.timeoutsKey, ...destination.buckets.map((bucket) => bucket.key)]).size).toBe(1);
    }
    // Two chats of one bot share its bucket, so they share a slot; another bot's chats go elsewhere.
    const chatOf = (botToken: string, chatId: string) => keySlot(destinationOf({ kind: 'telegram', botToken, chatId, template: '' }, DEFAULT_PACE, 'hw').blockKey);
    expect(chatOf('1:token', '42')).toBe(chatOf('1:token', '43'));
    expect(chatOf('1:token', '42')).not.toBe(chatOf('2:other', '42'));
  });
});
