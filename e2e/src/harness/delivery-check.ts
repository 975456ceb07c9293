import { verifyStandardSignature, waitFor, type WebhookReceiver } from '@hashwatch/testing';
import type { Webhook } from './gateway-client';
import type { Suite } from './suite';

/** A post the scenario put into X, with the hashtags it carries (lowercase, no `#`). */
export interface ExpectedPost {
  xPostId: string;
  tags: string[];
}

/** A json channel as saved by the gateway, and the receiver its URL points at. */
export interface WatchedChannel {
  name: string;
  webhook: Webhook;
  receiver: WebhookReceiver;
}

export interface ChannelCheck {
  name: string;
  expected: number;
  /** Expected items that reached the receiver at least once (2xx). */
  received: number;
  missing: string[];
  /** Accepted requests beyond the first for the same webhook-id (at-least-once redelivery). */
  sameIdRedeliveries: number;
  /** Items that arrived under two different webhook-ids. */
  itemsUnderTwoIds: string[];
  /** webhook-ids that carried two different items. */
  idsForTwoItems: string[];
  /** Requests whose Standard Webhooks signature does not verify with the channel's signing secret. */
  badSignatures: number;
  /** Accepted requests for items this channel should not get. */
  unexpected: string[];
  /** Accepted requests with no json `post.id` (a digest or an unknown body). */
  unparsable: number;
  /** First arrival (epoch ms) of each expected item that arrived, ascending. */
  arrivals: number[];
}

export interface DeliveryCheck {
  posts: number;
  /** Expected X posts with no feed item, and with more than one. */
  notStored: string[];
  storedTwice: string[];
  /** Engagement items of the expected posts, and those stored twice (same parent, engaging account and kind). */
  engagementItems: number;
  engagementTwice: string[];
  channels: ChannelCheck[];
  /** Latest first arrival over every (channel, item), epoch ms; 0 when nothing arrived. */
  lastFirstArrivalMs: number;
}

function matches(post: ExpectedPost, webhook: Webhook): boolean {
  return webhook.hashtags.length === 0 || webhook.hashtags.some((tag) => post.tags.includes(tag.toLowerCase()));
}

/**
 * Compares what the database stored and each receiver got with the posts the scenario put into X. A channel
 * with engagement alerts on also expects the engagement items of the posts in its scope (they ignore the source
 * filter, not the scope).
 */
export async function checkDeliveries(suite: Suite, posts: ExpectedPost[], channels: WatchedChannel[]): Promise<DeliveryCheck> {
  const items = await suite.feedItems();
  const itemsByPost = new Map<string, string[]>();
  for (const item of items) {
    if (item.type !== 'hashtag') continue;
    itemsByPost.set(item.x_post_id, [...(itemsByPost.get(item.x_post_id) ?? []), item.id]);
  }
  const notStored = posts.filter((post) => !itemsByPost.has(post.xPostId)).map((post) => post.xPostId);
  const storedTwice = posts.filter((post) => (itemsByPost.get(post.xPostId)?.length ?? 0) > 1).map((post) => post.xPostId);
  const postByItem = new Map(posts.flatMap((post) => (itemsByPost.get(post.xPostId) ?? []).map((id) => [id, post] as const)));
  const engagement = items.filter((item) => item.type === 'engagement' && item.parent_id !== null && postByItem.has(item.parent_id));
  const engagementKeys = new Map<string, number>();
  for (const item of engagement) {
    const key = `${item.parent_id}/${item.kind}/${item.author}`;
    engagementKeys.set(key, (engagementKeys.get(key) ?? 0) + 1);
  }

  let lastFirstArrivalMs = 0;
  const channelChecks = channels.map((channel): ChannelCheck => {
    const expectedItems = new Set(posts.filter((post) => matches(post, channel.webhook)).flatMap((post) => itemsByPost.get(post.xPostId) ?? [post.xPostId]));
    if (channel.webhook.engagement_alerts === true) {
      for (const item of engagement) if (matches(postByItem.get(item.parent_id!)!, channel.webhook)) expectedItems.add(item.id);
    }
    const accepted = channel.receiver.accepted();
    const idsByItem = new Map<string, Set<string>>();
    const itemsById = new Map<string, Set<string>>();
    const countById = new Map<string, number>();
    let unparsable = 0;
    for (const request of accepted) {
      if (request.itemId === null || request.webhookId === null) {
        unparsable += 1;
        continue;
      }
      idsByItem.set(request.itemId, (idsByItem.get(request.itemId) ?? new Set()).add(request.webhookId));
      itemsById.set(request.webhookId, (itemsById.get(request.webhookId) ?? new Set()).add(request.itemId));
      countById.set(request.webhookId, (countById.get(request.webhookId) ?? 0) + 1);
    }
    const firstArrivals = channel.receiver.firstArrivals();
    const arrivals: number[] = [];
    for (const item of expectedItems) {
      const at = firstArrivals.get(item);
      if (at === undefined) continue;
      arrivals.push(at);
      if (at > lastFirstArrivalMs) lastFirstArrivalMs = at;
    }
    arrivals.sort((a, b) => a - b);
    return {
      name: channel.name,
      expected: expectedItems.size,
      received: [...expectedItems].filter((item) => idsByItem.has(item)).length,
      missing: [...expectedItems].filter((item) => !idsByItem.has(item)),
      sameIdRedeliveries: [...countById.values()].reduce((sum, count) => sum + count - 1, 0),
      itemsUnderTwoIds: [...idsByItem].filter(([, ids]) => ids.size > 1).map(([item]) => item),
      idsForTwoItems: [...itemsById].filter(([, itemIds]) => itemIds.size > 1).map(([id]) => id),
      badSignatures: channel.receiver.requests.filter((request) => !verifyStandardSignature(channel.webhook.signing_secret, request)).length,
      unexpected: [...idsByItem.keys()].filter((item) => !expectedItems.has(item)),
      unparsable,
      arrivals,
    };
  });
  return {
    posts: posts.length,
    notStored,
    storedTwice,
    engagementItems: engagement.length,
    engagementTwice: [...engagementKeys].filter(([, count]) => count > 1).map(([key]) => key),
    channels: channelChecks,
    lastFirstArrivalMs,
  };
}

/** Waits until every expected post is stored and every matching channel got each item, then checks everything. */
export async function waitForDeliveries(suite: Suite, posts: ExpectedPost[], channels: WatchedChannel[], timeoutMs: number): Promise<DeliveryCheck> {
  let last: DeliveryCheck | undefined;
  try {
    await waitFor(
      async () => {
        last = await checkDeliveries(suite, posts, channels);
        return last.notStored.length === 0 && last.channels.every((channel) => channel.missing.length === 0);
      },
      timeoutMs,
      'every item stored and delivered',
      250,
    );
  } catch {
    // the check below says what is missing
  }
  return last ?? checkDeliveries(suite, posts, channels);
}

/**
 * The scenario's verdict: every violation, one per line, or [] when none. Same-id redeliveries are allowed
 * (at-least-once) only when `allowSameIdRedelivery`, after a SIGKILL.
 */
export function deliveryViolations(check: DeliveryCheck, options: { allowSameIdRedelivery: boolean }): string[] {
  const problems: string[] = [];
  const few = (list: string[]) => `${list.length} (${list.slice(0, 5).join(', ')}${list.length > 5 ? ', …' : ''})`;
  if (check.notStored.length > 0) problems.push(`posts never stored: ${few(check.notStored)}`);
  if (check.storedTwice.length > 0) problems.push(`posts stored twice: ${few(check.storedTwice)}`);
  if (check.engagementTwice.length > 0) problems.push(`engagement stored twice: ${few(check.engagementTwice)}`);
  for (const channel of check.channels) {
    if (channel.missing.length > 0) problems.push(`${channel.name}: items lost: ${few(channel.missing)} of ${channel.expected}`);
    if (channel.itemsUnderTwoIds.length > 0) problems.push(`${channel.name}: items under two webhook-ids: ${few(channel.itemsUnderTwoIds)}`);
    if (channel.idsForTwoItems.length > 0) problems.push(`${channel.name}: webhook-ids carrying two items: ${few(channel.idsForTwoItems)}`);
    if (channel.badSignatures > 0) problems.push(`${channel.name}: ${channel.badSignatures} requests with a bad signature`);
    if (channel.unexpected.length > 0) problems.push(`${channel.name}: items outside its scope: ${few(channel.unexpected)}`);
    if (channel.unparsable > 0) problems.push(`${channel.name}: ${channel.unparsable} accepted requests without a json post.id (digests?)`);
    if (!options.allowSameIdRedelivery && channel.sameIdRedeliveries > 0) problems.push(`${channel.name}: ${channel.sameIdRedeliveries} same webhook-id redeliveries`);
  }
  return problems;
}
