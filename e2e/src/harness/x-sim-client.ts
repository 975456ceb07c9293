import { z } from 'zod';

const postSchema = z.object({ id: z.string(), text: z.string(), created_at: z.string(), lang: z.string().optional() });
const requestsSchema = z.object({
  data: z.array(
    z.object({ at: z.string(), endpoint: z.string().nullable(), status: z.number(), fault: z.string().nullable(), query: z.record(z.string(), z.unknown()).default({}) }),
  ),
});

const replaySchema = z.object({ posts: z.record(z.string(), z.string()), users: z.record(z.string(), z.string()) });

export type SimPost = z.infer<typeof postSchema>;
/** Where each id of a replayed recording went: recorded id → the simulator's new id. */
export type SimReplay = z.infer<typeof replaySchema>;
export type SimRequest = z.infer<typeof requestsSchema>['data'][number];

export interface SimFault {
  endpoint: string;
  kind: 'rate_limited' | 'usage_capped' | 'unavailable' | 'internal_error' | 'slow' | 'unauthorized';
  count?: number;
  delay_ms?: number;
  reset_in_seconds?: number;
}

/** The x-sim control API (`/_sim`, apps/x-sim/README.md) over HTTP, as a test drives the simulator process. */
export class XSimClient {
  constructor(readonly url: string) {}

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`x-sim ${method} ${path} answered ${response.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  }

  async injectPost(post: { author: string; text: string; lang?: string; reply_to?: string }): Promise<SimPost> {
    return postSchema.parse(await this.call('POST', '/_sim/posts', post));
  }

  /** A post as X shows it now (every field), or a 404 error for one that is gone. */
  async post(postId: string): Promise<SimPost> {
    return postSchema.parse(await this.call('GET', `/_sim/posts/${encodeURIComponent(postId)}`));
  }

  /** An account on X, with the recorded id when it is free (so a replayed recording finds its author by handle). */
  async createUser(user: { username: string; name?: string; id?: string; verified?: boolean; followers_count?: number }): Promise<void> {
    await this.call('POST', '/_sim/users', user);
  }

  /**
   * A recorded X answer published now (`POST /_sim/replay`): its posts get fresh ids and the time of the call;
   * posts recorded without `author_id` are by `defaultAuthor`.
   */
  async replay(recording: unknown, defaultAuthor?: string): Promise<SimReplay> {
    const query = defaultAuthor ? `?default_author=${encodeURIComponent(defaultAuthor)}` : '';
    return replaySchema.parse(await this.call('POST', `/_sim/replay${query}`, recording));
  }

  /** The author edits the post: a new version with a new id (X's edit rules apply). */
  async editPost(postId: string, text: string): Promise<SimPost> {
    return postSchema.parse(await this.call('POST', `/_sim/posts/${encodeURIComponent(postId)}/edits`, { text }));
  }

  /** The author deletes the post (every version of it). */
  async deletePost(postId: string): Promise<void> {
    await this.call('DELETE', `/_sim/posts/${encodeURIComponent(postId)}`);
  }

  /** Named accounts like the post (each once), as X's liking_users then lists them. */
  async like(postId: string, usernames: string[]): Promise<void> {
    await this.call('POST', `/_sim/posts/${encodeURIComponent(postId)}/likes`, { usernames });
  }

  async addFault(fault: SimFault): Promise<void> {
    await this.call('POST', '/_sim/faults', fault);
  }

  async pendingFaults(): Promise<unknown[]> {
    return z.array(z.unknown()).parse(await this.call('GET', '/_sim/faults'));
  }

  async setRateWindow(windowSeconds: number): Promise<void> {
    await this.call('PUT', '/_sim/rate-limits', { window_seconds: windowSeconds });
  }

  async requests(endpoint: string): Promise<SimRequest[]> {
    return requestsSchema.parse(await this.call('GET', `/_sim/requests?endpoint=${encodeURIComponent(endpoint)}`)).data;
  }
}
