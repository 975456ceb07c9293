import { extractEntities, type PostEntities } from './entities';
import { SnowflakeIds } from './snowflake';
import { foldText, searchTokens } from './text-tokens';

export type ReferenceType = 'retweeted' | 'quoted' | 'replied_to';

export interface SimUser {
  id: string;
  username: string;
  name: string;
  createdAt: number;
  description: string;
  location: string | null;
  verified: boolean;
  protected: boolean;
  followersCount: number;
  followingCount: number;
  listedCount: number;
  postCount: number;
}

export interface PostMetrics {
  retweets: number;
  replies: number;
  likes: number;
  quotes: number;
  bookmarks: number;
  impressions: number;
}

export interface SimPost {
  id: string;
  num: bigint;
  authorId: string;
  text: string;
  lang: string;
  createdAt: number;
  /** When the search index shows it (creation plus the index lag); timelines and lookups ignore this. */
  visibleAt: number;
  conversationId: string;
  inReplyToUserId: string | null;
  references: { type: ReferenceType; id: string }[];
  entities: PostEntities;
  /** Folded search tokens of the text, hashtags and cashtags, computed once. */
  tokens: string[];
  hashtagKeys: Set<string>;
  cashtagKeys: Set<string>;
  metrics: PostMetrics;
  /** Named likers and retweeters, oldest first; anonymous engagement only moves the counts. */
  likerIds: string[];
  retweeterIds: string[];
}

export interface NewUser {
  username: string;
  name?: string;
  id?: string;
  createdAt?: number;
  description?: string;
  location?: string | null;
  verified?: boolean;
  protected?: boolean;
  followersCount?: number;
}

export interface NewPost {
  authorId: string;
  text?: string;
  lang?: string;
  createdAt: number;
  visibleAt: number;
  replyTo?: string;
  retweetOf?: string;
  quoteOf?: string;
  metrics?: Partial<PostMetrics>;
}

/** Why a store change was refused; the control API turns it into a 404 or 409. */
export class StoreError extends Error {
  constructor(
    readonly reason: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

function lowerBound(posts: readonly SimPost[], num: bigint): number {
  let lo = 0;
  let hi = posts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (posts[mid]!.num < num) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertSorted(posts: SimPost[], post: SimPost): void {
  const last = posts[posts.length - 1];
  if (!last || last.num < post.num) posts.push(post);
  else posts.splice(lowerBound(posts, post.num), 0, post);
}

function removeSorted(posts: SimPost[], post: SimPost): void {
  const at = lowerBound(posts, post.num);
  if (posts[at] === post) posts.splice(at, 1);
}

/** The simulated world: users and posts in memory, posts kept sorted by id. */
export class SimStore {
  private readonly usersById = new Map<string, SimUser>();
  private readonly usersByName = new Map<string, SimUser>();
  private readonly postsById = new Map<string, SimPost>();
  private readonly sorted: SimPost[] = [];
  private readonly byAuthor = new Map<string, SimPost[]>();
  private readonly ids = new SnowflakeIds((id) => this.postsById.has(id.toString()));
  private nextUserId = 1_000_000_001n;
  private readonly createdListeners = new Set<(post: SimPost) => void>();

  constructor(private readonly now: () => number) {}

  createUser(input: NewUser): SimUser {
    const key = input.username.toLowerCase();
    if (this.usersByName.has(key)) throw new StoreError('conflict', `user ${input.username} already exists`);
    if (input.id && this.usersById.has(input.id)) throw new StoreError('conflict', `user id ${input.id} already exists`);
    let id = input.id;
    while (!id || this.usersById.has(id)) {
      id = this.nextUserId.toString();
      this.nextUserId += 1n;
    }
    const user: SimUser = {
      id,
      username: input.username,
      name: input.name ?? input.username,
      createdAt: input.createdAt ?? this.now() - 365 * 24 * 3600 * 1000,
      description: input.description ?? '',
      location: input.location ?? null,
      verified: input.verified ?? false,
      protected: input.protected ?? false,
      followersCount: input.followersCount ?? 0,
      followingCount: 0,
      listedCount: 0,
      postCount: 0,
    };
    this.usersById.set(user.id, user);
    this.usersByName.set(key, user);
    return user;
  }

  /** The user with this handle, created on first mention: the control API and the generator post as anyone. */
  ensureUser(username: string): SimUser {
    return this.userByUsername(username) ?? this.createUser({ username });
  }

  userByUsername(username: string): SimUser | undefined {
    return this.usersByName.get(username.toLowerCase());
  }

  userById(id: string): SimUser | undefined {
    return this.usersById.get(id);
  }

  users(): SimUser[] {
    return [...this.usersById.values()];
  }

  post(id: string): SimPost | undefined {
    return this.postsById.get(id);
  }

  postCount(): number {
    return this.sorted.length;
  }

  createPost(input: NewPost): SimPost {
    const author = this.usersById.get(input.authorId);
    if (!author) throw new StoreError('not_found', `no user with id ${input.authorId}`);
    const target = (id: string | undefined, what: string): SimPost | undefined => {
      if (id === undefined) return undefined;
      const post = this.postsById.get(id);
      if (!post) throw new StoreError('not_found', `no post ${id} to ${what}`);
      return post;
    };
    const parent = target(input.replyTo, 'reply to');
    const original = target(input.retweetOf, 'retweet');
    const quoted = target(input.quoteOf, 'quote');
    const originalAuthor = original && this.usersById.get(original.authorId);
    const text = original && originalAuthor ? `RT @${originalAuthor.username}: ${original.text}` : (input.text ?? '');

    const num = this.ids.next(input.createdAt);
    const id = num.toString();
    const entities = extractEntities(text);
    const references: SimPost['references'] = [];
    if (original) references.push({ type: 'retweeted', id: original.id });
    if (quoted) references.push({ type: 'quoted', id: quoted.id });
    if (parent) references.push({ type: 'replied_to', id: parent.id });
    const post: SimPost = {
      id,
      num,
      authorId: author.id,
      text,
      lang: input.lang ?? original?.lang ?? 'en',
      createdAt: input.createdAt,
      visibleAt: Math.max(input.visibleAt, input.createdAt),
      conversationId: parent ? parent.conversationId : id,
      inReplyToUserId: parent ? parent.authorId : null,
      references,
      entities,
      tokens: searchTokens(text),
      hashtagKeys: new Set(entities.hashtags.map((entity) => foldText(entity.tag))),
      cashtagKeys: new Set(entities.cashtags.map((entity) => foldText(entity.tag))),
      metrics: { retweets: 0, replies: 0, likes: 0, quotes: 0, bookmarks: 0, impressions: 0, ...input.metrics },
      likerIds: [],
      retweeterIds: [],
    };
    this.postsById.set(id, post);
    insertSorted(this.sorted, post);
    let authored = this.byAuthor.get(author.id);
    if (!authored) this.byAuthor.set(author.id, (authored = []));
    insertSorted(authored, post);
    author.postCount += 1;
    if (parent) parent.metrics.replies += 1;
    if (quoted) quoted.metrics.quotes += 1;
    if (original) {
      original.metrics.retweets += 1;
      if (!original.retweeterIds.includes(author.id)) original.retweeterIds.push(author.id);
    }
    for (const listener of this.createdListeners) listener(post);
    return post;
  }

  /** Hears every post as it is created (the filtered stream delivers from here); returns the unsubscribe. */
  onPostCreated(listener: (post: SimPost) => void): () => void {
    this.createdListeners.add(listener);
    return () => this.createdListeners.delete(listener);
  }

  /** Named likes (each account once) plus anonymous ones that only move like_count, as X's real totals do. */
  addLikes(postId: string, userIds: readonly string[], anonymous: number): SimPost {
    const post = this.requirePost(postId);
    for (const userId of userIds) {
      if (post.likerIds.includes(userId)) continue;
      post.likerIds.push(userId);
      post.metrics.likes += 1;
    }
    post.metrics.likes += anonymous;
    post.metrics.impressions += (userIds.length + anonymous) * 20;
    return post;
  }

  /** Retweets by named accounts become retweet posts (each account once); anonymous ones move retweet_count. */
  addRetweets(postId: string, userIds: readonly string[], anonymous: number, at: number): SimPost {
    const post = this.requirePost(postId);
    for (const userId of userIds) {
      if (post.retweeterIds.includes(userId)) continue;
      this.createPost({ authorId: userId, retweetOf: post.id, createdAt: at, visibleAt: at });
    }
    post.metrics.retweets += anonymous;
    return post;
  }

  deletePost(id: string): void {
    const post = this.requirePost(id);
    this.postsById.delete(id);
    removeSorted(this.sorted, post);
    const authored = this.byAuthor.get(post.authorId);
    if (authored) removeSorted(authored, post);
    const author = this.usersById.get(post.authorId);
    if (author) author.postCount -= 1;
  }

  /** Posts with since < id < until, newest first, from every author or one. */
  *newestFirst(bounds: { since?: bigint; until?: bigint; authorId?: string }): Generator<SimPost> {
    const posts = bounds.authorId ? (this.byAuthor.get(bounds.authorId) ?? []) : this.sorted;
    const high = bounds.until === undefined ? posts.length : lowerBound(posts, bounds.until);
    const low = bounds.since === undefined ? 0 : lowerBound(posts, bounds.since + 1n);
    for (let i = high - 1; i >= low; i -= 1) {
      const post = posts[i];
      // A post deleted while a caller iterates is skipped.
      if (post && this.postsById.has(post.id)) yield post;
    }
  }

  /** The newest `count` posts, newest first. */
  latest(count: number): SimPost[] {
    return this.sorted.slice(Math.max(0, this.sorted.length - count)).reverse();
  }

  /** Drops posts created before `before` (X's recent search covers 7 days; the generator would grow forever). */
  pruneBefore(before: number): number {
    let dropped = 0;
    while (this.sorted.length > 0 && this.sorted[0]!.createdAt < before) {
      this.deletePost(this.sorted[0]!.id);
      dropped += 1;
    }
    return dropped;
  }

  reset(): void {
    this.usersById.clear();
    this.usersByName.clear();
    this.postsById.clear();
    this.sorted.length = 0;
    this.byAuthor.clear();
    this.ids.reset();
    this.nextUserId = 1_000_000_001n;
  }

  private requirePost(id: string): SimPost {
    const post = this.postsById.get(id);
    if (!post) throw new StoreError('not_found', `no post ${id}`);
    return post;
  }
}
