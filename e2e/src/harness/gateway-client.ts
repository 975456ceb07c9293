import { z } from 'zod';

const webhookSchema = z.object({ id: z.string(), url: z.string(), format: z.string(), hashtags: z.array(z.string()), signing_secret: z.string() }).passthrough();
const notificationsSchema = z.object({ webhooks: z.array(webhookSchema), bot: z.unknown() });
const deliverySchema = z.object({
  id: z.string(),
  channel_id: z.string(),
  feed_item_id: z.string(),
  status: z.enum(['pending', 'delivered', 'failed', 'skipped']),
  late: z.boolean(),
  attempts: z.number(),
  last_error: z.string().nullable(),
  last_status: z.number().nullable(),
});
const deliveryPageSchema = z.object({ data: z.array(deliverySchema), next_cursor: z.string().nullable() });

export type Webhook = z.infer<typeof webhookSchema>;
export type Delivery = z.infer<typeof deliverySchema>;

export interface JsonChannelInput {
  url: string;
  /** Hashtags without `#`; empty: every source. */
  hashtags: string[];
  /** Engagement alerts on (default off). */
  engagementAlerts?: boolean;
  /** The receiver's own ceiling (`max_per_second`); default none. */
  maxPerSecond?: number;
}

/** The gateway's public API (`/v1`) over HTTP with one account's key, as a user calls it. */
export class GatewayClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.baseUrl}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${this.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`gateway ${method} /v1${path} answered ${response.status}: ${text}`);
    return JSON.parse(text);
  }

  async createTrack(hashtag: string, options: { trackEngagement?: boolean } = {}): Promise<string> {
    const body = { hashtag, ...(options.trackEngagement ? { track_engagement: true } : {}) };
    return z.object({ id: z.string() }).parse(await this.call('POST', '/tracks', body)).id;
  }

  async resyncLimits(): Promise<{ scan_interval_seconds: number; engagement_refresh_seconds: number }> {
    return z
      .object({ scan_interval_seconds: z.number(), engagement_refresh_seconds: z.number() })
      .passthrough()
      .parse(await this.call('POST', '/me/resync-limits'));
  }

  /** Replaces the notification configuration with json channels; answers the saved webhooks (with secrets). */
  async putJsonChannels(channels: JsonChannelInput[]): Promise<Webhook[]> {
    const webhooks = channels.map((channel) => ({
      url: channel.url,
      format: 'json',
      hashtags: channel.hashtags,
      accounts: [],
      engagement_alerts: channel.engagementAlerts ?? false,
      max_per_second: channel.maxPerSecond ?? null,
    }));
    const body = { webhooks, bot: null };
    return notificationsSchema.parse(await this.call('PUT', '/notifications', body)).webhooks;
  }

  async notifications(): Promise<Webhook[]> {
    return notificationsSchema.parse(await this.call('GET', '/notifications')).webhooks;
  }

  /** Every delivery of the account (all pages), newest first. */
  async deliveries(channel?: string): Promise<Delivery[]> {
    const all: Delivery[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ limit: '100' });
      if (channel) query.set('channel', channel);
      if (cursor) query.set('cursor', cursor);
      const page = deliveryPageSchema.parse(await this.call('GET', `/notifications/deliveries?${query.toString()}`));
      all.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return all;
  }
}
