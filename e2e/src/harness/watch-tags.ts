import { waitFor, WebhookReceiver } from '@hashwatch/testing';
import type { ExpectedPost, WatchedChannel } from './delivery-check';
import type { Suite } from './suite';

export interface ChannelSpec {
  name: string;
  /** Scope, without `#`; empty: every source. */
  hashtags: string[];
  engagementAlerts?: boolean;
  maxPerSecond?: number;
}

/**
 * Tracks `tags` through the gateway (those in `engagementTags` with engagement tracking on), saves one json
 * channel per spec pointing at a fresh receiver, and waits until the scanner has searched X twice since (so the
 * new sources are live) before the scenario posts.
 */
export async function watchTags(suite: Suite, tags: string[], specs: ChannelSpec[], options: { engagementTags?: string[] } = {}): Promise<WatchedChannel[]> {
  const receivers = await Promise.all(specs.map(() => new WebhookReceiver().start()));
  for (const tag of tags) await suite.gateway.createTrack(tag, { trackEngagement: options.engagementTags?.includes(tag) });
  const webhooks = await suite.gateway.putJsonChannels(
    specs.map((spec, i) => ({ url: receivers[i]!.url, hashtags: spec.hashtags, engagementAlerts: spec.engagementAlerts, maxPerSecond: spec.maxPerSecond })),
  );
  const channels = specs.map((spec, i): WatchedChannel => {
    const receiver = receivers[i]!;
    const webhook = webhooks.find((candidate) => candidate.url === receiver.url);
    if (!webhook) throw new Error(`PUT /v1/notifications did not answer the channel for ${receiver.url}`);
    return { name: spec.name, webhook, receiver };
  });
  const before = (await suite.xsim.requests('search_recent')).length;
  await waitFor(async () => (await suite.xsim.requests('search_recent')).length >= before + 2, 30_000, 'the scanner to search the new tracks');
  return channels;
}

/**
 * Posts `count` posts to X (`POST /_sim/posts`), round-robin over `tags`, spread evenly over `spreadMs`
 * (0: as fast as the simulator takes them). Answers them as the items the scenario expects.
 */
export async function postBurst(suite: Suite, count: number, tags: string[], spreadMs = 0): Promise<ExpectedPost[]> {
  const posts: ExpectedPost[] = [];
  const started = Date.now();
  for (let i = 0; i < count; i += 1) {
    const tag = tags[i % tags.length]!;
    const post = await suite.xsim.injectPost({ author: `e2eauthor${i % 7}`, text: `burst ${i} #${tag}`, lang: 'en' });
    posts.push({ xPostId: post.id, tags: [tag.toLowerCase()] });
    if (spreadMs > 0) {
      const due = started + ((i + 1) * spreadMs) / count;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
  return posts;
}
