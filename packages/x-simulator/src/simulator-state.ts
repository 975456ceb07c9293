import type { Logger } from '@hashwatch/logger';
import { ALL_FIELDS } from './fields/field-selection';
import { Serializer } from './fields/serializer';
import { FaultInjector, type Fault } from './faults/fault-injector';
import { PostGenerator } from './generator/post-generator';
import { Problems } from './http/problems';
import { SimRateLimiter } from './limits/rate-limiter';
import { RequestLog } from './observability/request-log';
import { replayRecording, type ReplayOptions, type ReplayResult } from './replay/replay-recording';
import {
  createUserBody,
  editPostBody,
  engagementBody,
  faultBody,
  injectPostBody,
  postWithheldBody,
  replyBody,
  streamDisconnectBody,
  userWithheldBody,
  type CreateUserBody,
  type EditPostBody,
  type EngagementBody,
  type FaultBody,
  type InjectPostBody,
  type PostWithheldBody,
  type ReplyBody,
  type StreamDisconnectBody,
  type UserWithheldBody,
} from './routes/control.schema';
import type { SimulatorSettings } from './simulator-options';
import { SimStore, StoreError, type MediaType, type NewMedia, type PostWithheld, type SimPost, type SimUser, type UserWithheld } from './store/sim-store';
import { StreamHub, type StreamStatus } from './stream/stream-hub';
import { ComplianceJobs } from './compliance/compliance-jobs';

/**
 * Everything the simulated X knows: the world (users, posts), rate-limit windows, queued faults, the request
 * log and the generator. The control API and in-process tests change it through the same methods, and every
 * input is checked with the control API's zod schemas.
 */
export class SimulatorState {
  readonly store: SimStore;
  readonly serializer: Serializer;
  readonly problems: Problems;
  readonly limiter: SimRateLimiter;
  readonly faults = new FaultInjector();
  /** X's batch compliance jobs (routes/compliance.router.ts). */
  readonly compliance: ComplianceJobs;
  readonly requestLog: RequestLog;
  readonly generator: PostGenerator;
  /** The filtered stream: rules per app, open connections, delivery. */
  readonly stream: StreamHub;

  constructor(
    readonly settings: SimulatorSettings,
    readonly now: () => number,
    logger?: Logger,
  ) {
    this.store = new SimStore(now);
    this.compliance = new ComplianceJobs(this.store, now);
    this.serializer = new Serializer(this.store, settings.naming);
    this.problems = new Problems(this.serializer.keys);
    this.limiter = new SimRateLimiter(settings.rateLimitWindowSeconds, settings.rateLimits, now);
    this.requestLog = new RequestLog(settings.requestLogSize);
    this.generator = new PostGenerator(this.store, { now, indexLagMs: settings.indexLagMs }, settings.generator, logger);
    this.stream = new StreamHub(settings, this.store, this.serializer, this.problems, now, (posts, users) =>
      this.requestLog.addServed('stream_connect', posts, users),
    );
  }

  createUser(input: CreateUserBody): SimUser {
    const body = createUserBody.parse(input);
    return this.store.createUser({
      username: body.username,
      name: body.name,
      id: body.id,
      description: body.description,
      location: body.location,
      verified: body.verified,
      protected: body.protected,
      followersCount: body.followers_count,
      createdAt: body.created_at === undefined ? undefined : Date.parse(body.created_at),
      withheld: body.withheld ? userWithheld(body.withheld) : null,
    });
  }

  injectPost(input: InjectPostBody): SimPost {
    const body = injectPostBody.parse(input);
    const createdAt = body.created_at === undefined ? this.now() : Date.parse(body.created_at);
    const metrics = body.public_metrics;
    return this.store.createPost({
      authorId: this.store.ensureUser(body.author).id,
      text: body.text,
      links: body.links,
      media: body.media && newMedia(body.media),
      lang: body.lang,
      createdAt,
      visibleAt: createdAt + this.settings.indexLagMs + (body.visible_after_ms ?? 0),
      // Engagement lands on the version people see: an edited post's newest.
      replyTo: this.latestId(body.reply_to),
      retweetOf: this.latestId(body.retweet_of),
      quoteOf: this.latestId(body.quote_of),
      withheld: body.withheld ? postWithheld(body.withheld) : null,
      metrics: metrics && {
        retweets: metrics.retweet_count,
        replies: metrics.reply_count,
        likes: metrics.like_count,
        quotes: metrics.quote_count,
        bookmarks: metrics.bookmark_count,
        impressions: metrics.impression_count,
      },
    });
  }

  /** Likes on a post; on an edited post they land on its newest version, as on X. */
  addLikes(postId: string, input: EngagementBody): SimPost {
    const body = engagementBody.parse(input);
    return this.store.addLikes(this.requireLatestId(postId), body.usernames.map((name) => this.store.ensureUser(name).id), body.anonymous);
  }

  addRetweets(postId: string, input: EngagementBody): SimPost {
    const body = engagementBody.parse(input);
    return this.store.addRetweets(this.requireLatestId(postId), body.usernames.map((name) => this.store.ensureUser(name).id), body.anonymous, this.now());
  }

  addReply(postId: string, input: ReplyBody): SimPost {
    const body = replyBody.parse(input);
    return this.injectPost({ ...body, reply_to: postId });
  }

  /**
   * Edits a post (any version of it names the post): a new version with a new, larger id joins its edit chain,
   * and search, timelines and the stream carry it from now on. Refused (409) as X refuses: retweets, replies to
   * others, after 30 minutes, after 5 edits.
   */
  editPost(postId: string, input: EditPostBody): SimPost {
    const body = editPostBody.parse(input);
    const at = this.now();
    return this.store.editPost(
      postId,
      {
        text: body.text,
        links: body.links,
        media: body.media && newMedia(body.media),
        lang: body.lang,
      },
      at,
      at + this.settings.indexLagMs + (body.visible_after_ms ?? 0),
    );
  }

  /** Publishes a recorded X answer's posts and users now, with fresh ids; see {@link replayRecording}. */
  replayRecording(recording: unknown, options: ReplayOptions = {}): ReplayResult {
    return replayRecording(this, recording, options);
  }

  /** Marks every version of a post withheld (null lifts it). */
  setPostWithheld(postId: string, input: PostWithheldBody | null): SimPost {
    const withheld = input === null ? null : postWithheld(postWithheldBody.parse(input));
    const post = this.store.post(postId);
    if (!post) throw new StoreError('not_found', `no post ${postId}`);
    for (const id of post.edits.ids) if (this.store.post(id)) this.store.setPostWithheld(id, withheld);
    return post;
  }

  setUserWithheld(username: string, input: UserWithheldBody | null): SimUser {
    const withheld = input === null ? null : userWithheld(userWithheldBody.parse(input));
    const user = this.store.userByUsername(username);
    if (!user) throw new StoreError('not_found', `no user ${username}`);
    return this.store.setUserWithheld(user.id, withheld);
  }

  deletePost(postId: string): void {
    this.store.deletePost(postId);
  }

  injectFault(input: FaultBody): Fault[] {
    const body = faultBody.parse(input);
    this.faults.add({
      endpoint: body.endpoint,
      kind: body.kind,
      remaining: body.count,
      delayMs: body.delay_ms,
      body: body.body,
      resetInSeconds: body.reset_in_seconds,
    });
    return this.faults.pending();
  }

  /** Ends the open stream connections (X's operational-disconnect line first when asked); returns how many. */
  streamDisconnect(input: StreamDisconnectBody = {}): number {
    const body = streamDisconnectBody.parse(input);
    return this.stream.disconnect(body.operational);
  }

  /** Open stream connections stop sending anything, keep-alives included, until resumed or closed. */
  streamStall(): number {
    return this.stream.stall();
  }

  streamResume(): number {
    return this.stream.resume();
  }

  streamStatus(): StreamStatus {
    return this.stream.status();
  }

  /** A post as X would show it with every modelled field, plus its author's handle. */
  describePost(post: SimPost): Record<string, unknown> {
    const author = this.store.userById(post.authorId);
    return { ...this.serializer.post(post, ALL_FIELDS.post), author_username: author?.username ?? null, visible_at: new Date(post.visibleAt).toISOString() };
  }

  describeUser(user: SimUser): Record<string, unknown> {
    return this.serializer.user(user, ALL_FIELDS.user);
  }

  private latestId(id: string | undefined): string | undefined {
    return id === undefined ? undefined : (this.store.latestVersion(id)?.id ?? id);
  }

  private requireLatestId(id: string): string {
    const latest = this.store.latestVersion(id);
    if (!latest) throw new StoreError('not_found', `no post ${id}`);
    return latest.id;
  }

  /** Back to an empty world: no users, posts, windows, faults, log, stream rules or connections; the generator stops. */
  reset(): void {
    this.generator.stop();
    this.stream.reset();
    this.store.reset();
    this.limiter.resetWindows();
    this.faults.clear();
    this.requestLog.clear();
  }
}

function postWithheld(body: { copyright?: boolean; country_codes: string[]; scope?: 'tweet' | 'user' }): PostWithheld {
  return { copyright: body.copyright ?? false, countryCodes: body.country_codes, scope: body.scope };
}

function userWithheld(body: { country_codes: string[]; scope?: 'user' }): UserWithheld {
  return { countryCodes: body.country_codes, scope: body.scope };
}

function newMedia(items: { type: MediaType; url?: string; preview_image_url?: string; width: number; height: number; alt_text?: string }[]): NewMedia[] {
  return items.map((item) => ({ type: item.type, url: item.url, previewImageUrl: item.preview_image_url, width: item.width, height: item.height, altText: item.alt_text }));
}
