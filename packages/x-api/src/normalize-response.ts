import type { z } from 'zod';
import { codePointLength, shiftEntity, unescapeXText, type UnescapedText } from './post-text';
import {
  postListResponseSchema,
  wireEntitiesSchema,
  wireMediaSchema,
  wirePostSchema,
  wirePostShape,
  wireUserSchema,
  type PostCountsResponse,
  type PostListResponse,
  type WireEntities,
  type WireIncludes,
  type WireMetrics,
  type WirePost,
  type WireProblem,
  type WireUser,
} from './x-response.schema';
import type {
  XMalformedPost,
  XMedia,
  XMentionEntity,
  XPost,
  XPostCountsLookup,
  XPostLookup,
  XPostMetrics,
  XPostPage,
  XProblem,
  XQuotedPost,
  XTagEntity,
  XUrlEntity,
  XUser,
} from './x-types';

// X's verified_type: `blue` (X Premium), `business`, `government`, or `none`; `verified` alone on older answers.
const VERIFIED_TYPES = new Set(['blue', 'business', 'government']);

export function normalizeUser(user: WireUser): XUser {
  const verified = user.verified === true || (user.verified_type !== undefined && VERIFIED_TYPES.has(user.verified_type));
  return { id: user.id, username: user.username, name: user.name, verified, followersCount: user.public_metrics?.followers_count ?? null };
}

export function normalizeProblem(problem: WireProblem): XProblem {
  const value = problem.value;
  return {
    type: problem.type ?? 'about:blank',
    title: problem.title ?? null,
    detail: problem.detail ?? null,
    resourceType: problem.resource_type ?? null,
    resourceId: problem.resource_id ?? null,
    parameter: problem.parameter ?? null,
    value: value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value),
  };
}

/** public_metrics in one shape whichever spelling X used (`retweet_count` or 2.167's `repost_count`). */
export function normalizeMetrics(metrics: WireMetrics): XPostMetrics {
  return {
    // The schema guarantees one of the two spellings.
    retweetCount: metrics.retweet_count ?? metrics.repost_count ?? 0,
    replyCount: metrics.reply_count,
    likeCount: metrics.like_count,
    quoteCount: metrics.quote_count ?? 0,
    bookmarkCount: metrics.bookmark_count ?? null,
    impressionCount: metrics.impression_count ?? null,
  };
}

type EntityKind = keyof WireEntities;
const ENTITY_KINDS: readonly EntityKind[] = ['hashtags', 'cashtags', 'mentions', 'urls'];

/** Each entity that parses on its own; the others are named in `dropped` (`entities.hashtags.2`). */
function salvageEntities(raw: unknown, path: string, dropped: string[]): WireEntities | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object') {
    dropped.push(path);
    return undefined;
  }
  const out: WireEntities = {};
  for (const kind of ENTITY_KINDS) {
    const list = (raw as Record<string, unknown>)[kind];
    if (list === undefined || list === null) continue;
    const element = wireEntitiesSchema.shape[kind].unwrap().unwrap().element;
    if (!Array.isArray(list)) {
      dropped.push(`${path}.${kind}`);
      continue;
    }
    const kept: unknown[] = [];
    list.forEach((entity, index) => {
      const parsed = element.safeParse(entity);
      if (parsed.success) kept.push(parsed.data);
      else dropped.push(`${path}.${kind}.${index}`);
    });
    (out as Record<string, unknown>)[kind] = kept;
  }
  return out;
}

/**
 * A post that failed the schema, kept field by field: what parses on its own stays, the rest is named. Without
 * an id and a text there is no post to keep.
 */
function salvagePost(raw: unknown): { post: WirePost | null; dropped: string[] } {
  if (typeof raw !== 'object' || raw === null) return { post: null, dropped: ['post'] };
  const record = raw as Record<string, unknown>;
  const dropped: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(wirePostShape) as [keyof typeof wirePostShape, z.ZodType][]) {
    if (record[key] === undefined) continue;
    const parsed = schema.safeParse(record[key]);
    if (parsed.success) {
      out[key] = parsed.data;
    } else if (key === 'entities') {
      out.entities = salvageEntities(record.entities, 'entities', dropped);
    } else if (key === 'note_tweet' && typeof record.note_tweet === 'object' && record.note_tweet !== null && typeof (record.note_tweet as { text?: unknown }).text === 'string') {
      const note = record.note_tweet as { text: string; entities?: unknown };
      out.note_tweet = { text: note.text, entities: salvageEntities(note.entities, 'note_tweet.entities', dropped) };
    } else {
      dropped.push(key);
    }
  }
  if (typeof out.id !== 'string' || typeof out.text !== 'string') return { post: null, dropped: ['post'] };
  return { post: out as WirePost, dropped };
}

/** The users, media and posts X included, each read on its own: one that does not parse is left out and named. */
interface Included {
  usersById: Map<string, XUser>;
  mediaByKey: Map<string, XMedia>;
}

function readIncluded(includes: WireIncludes | undefined, malformed: XMalformedPost[]): Included {
  const usersById = new Map<string, XUser>();
  (includes?.users ?? []).forEach((raw, index) => {
    const parsed = wireUserSchema.safeParse(raw);
    if (parsed.success) usersById.set(parsed.data.id, normalizeUser(parsed.data));
    else malformed.push({ id: null, dropped: [`includes.users.${index}`] });
  });
  const mediaByKey = new Map<string, XMedia>();
  (includes?.media ?? []).forEach((raw, index) => {
    const parsed = wireMediaSchema.safeParse(raw);
    if (!parsed.success) {
      malformed.push({ id: null, dropped: [`includes.media.${index}`] });
      return;
    }
    const media = parsed.data;
    mediaByKey.set(media.media_key, {
      key: media.media_key,
      type: media.type,
      url: media.url ?? null,
      previewImageUrl: media.preview_image_url ?? null,
      width: media.width ?? null,
      height: media.height ?? null,
      altText: media.alt_text ?? null,
    });
  });
  return { usersById, mediaByKey };
}

/** Entities over the unescaped text; one lying outside X's own text is not trusted and is named. */
function placeEntities<T extends { start: number; end: number }>(entities: readonly T[] | null | undefined, text: UnescapedText, path: string, dropped: string[]): T[] {
  const out: T[] = [];
  (entities ?? []).forEach((entity, index) => {
    if (entity.start < 0 || entity.end < entity.start || entity.end > text.escapedLength) {
      dropped.push(`${path}.${index}`);
      return;
    }
    out.push({ ...entity, start: text.offset(entity.start), end: text.offset(entity.end) });
  });
  return out;
}

const SNOWFLAKE = /^[0-9]{1,19}$/;

/** One post in one shape whichever spelling X used; its author from the users X included. References are not followed here. */
function normalizeOwn(post: WirePost, included: Included, dropped: string[]): XPost {
  const references = post.referenced_tweets ?? post.referenced_posts ?? [];
  const metrics = post.public_metrics;
  const has = (type: string) => references.some((reference) => reference.type === type);
  // A long post's `text` is cut; its whole text and that text's own entities are in note_tweet.
  const note = post.note_tweet;
  const source = note ? { raw: note.text, entities: note.entities ?? {}, path: 'note_tweet.entities' } : { raw: post.text, entities: post.entities ?? {}, path: 'entities' };
  const text = unescapeXText(source.raw);
  const tags = (kind: 'hashtags' | 'cashtags'): XTagEntity[] =>
    placeEntities(source.entities[kind], text, `${source.path}.${kind}`, dropped).map(({ start, end, tag }) => ({ start, end, tag }));
  const author = post.author_id ? (included.usersById.get(post.author_id) ?? null) : null;
  // The client always expands author_id: a post whose author X left out is stored under the author's id.
  if (post.author_id && author === null) dropped.push('author');
  const history = post.edit_history_tweet_ids ?? post.edit_history_post_ids ?? [];
  const versions = history.length > 0 && history.every((id) => SNOWFLAKE.test(id)) ? history : [post.id];
  return {
    id: post.id,
    rootId: versions[0] ?? post.id,
    text: text.text,
    authorId: post.author_id ?? null,
    author,
    createdAt: post.created_at === undefined ? null : new Date(post.created_at).toISOString(),
    lang: post.lang ?? null,
    conversationId: post.conversation_id ?? null,
    inReplyToUserId: post.in_reply_to_user_id ?? null,
    referencedPosts: references.map((reference) => ({ type: reference.type, id: reference.id })),
    isRetweet: has('retweeted'),
    isReply: has('replied_to'),
    isQuote: has('quoted'),
    hashtags: tags('hashtags'),
    cashtags: tags('cashtags'),
    mentions: placeEntities(source.entities.mentions, text, `${source.path}.mentions`, dropped).map(({ start, end, username, id }) => ({ start, end, username: username ?? null, id: id ?? null })),
    urls: placeEntities(source.entities.urls, text, `${source.path}.urls`, dropped).map((url): XUrlEntity => ({
      start: url.start,
      end: url.end,
      url: url.url,
      expandedUrl: url.expanded_url ?? url.url,
      displayUrl: url.display_url ?? url.expanded_url ?? url.url,
      mediaKey: url.media_key ?? null,
    })),
    media: (post.attachments?.media_keys ?? []).flatMap((key) => {
      const media = included.mediaByKey.get(key);
      return media ? [media] : [];
    }),
    quoted: null,
    metrics: metrics ? normalizeMetrics(metrics) : null,
    editHistoryPostIds: versions,
    withheldIn: post.withheld?.country_codes ?? [],
  };
}

const RETWEET_PREFIX = /^RT @([A-Za-z0-9_]{1,15}): /;

/**
 * A retweet with its whole original: X cuts the original to about 140 characters after `RT @author: ` and sends
 * the whole of it in includes. The text keeps X's `RT @author: ` form with the original's whole text after it;
 * the original's entities, links and media become the retweet's, moved past the prefix.
 */
function wholeRetweet(retweet: XPost, original: XPost): XPost {
  const handle = RETWEET_PREFIX.exec(retweet.text)?.[1] ?? original.author?.username ?? null;
  if (handle === null) return retweet;
  const prefix = `RT @${handle}: `;
  const by = codePointLength(prefix);
  const prefixMention: XMentionEntity = { start: 3, end: 4 + codePointLength(handle), username: handle, id: original.authorId };
  return {
    ...retweet,
    text: prefix + original.text,
    hashtags: original.hashtags.map((entity) => shiftEntity(entity, by)),
    cashtags: original.cashtags.map((entity) => shiftEntity(entity, by)),
    mentions: [prefixMention, ...original.mentions.map((entity) => shiftEntity(entity, by))],
    urls: original.urls.map((entity) => shiftEntity(entity, by)),
    media: retweet.media.length > 0 ? retweet.media : original.media,
    quoted: original.quoted,
  };
}

function quotedPost(post: XPost): XQuotedPost {
  return { id: post.id, authorId: post.authorId, author: post.author, text: post.text };
}

/** Each post of `raw` that can be read, strictly or by salvage; what was left out is recorded in `malformed`. */
function readPosts(raw: readonly unknown[] | undefined, included: Included, malformed: XMalformedPost[]): XPost[] {
  const posts: XPost[] = [];
  for (const item of raw ?? []) {
    const strict = wirePostSchema.safeParse(item);
    const { post, dropped } = strict.success ? { post: strict.data, dropped: [] as string[] } : salvagePost(item);
    if (post === null) {
      const id = typeof item === 'object' && item !== null && typeof (item as { id?: unknown }).id === 'string' ? (item as { id: string }).id : null;
      malformed.push({ id, dropped });
      continue;
    }
    const normalized = normalizeOwn(post, included, dropped);
    if (dropped.length > 0) malformed.push({ id: post.id, dropped });
    posts.push(normalized);
  }
  return posts;
}

/** data + includes (tweets or posts, users, media) + partial errors of a post list answer. */
export function normalizePostLookup(body: Pick<PostListResponse, 'data' | 'includes' | 'errors'>): XPostLookup {
  const malformed: XMalformedPost[] = [];
  const included = readIncluded(body.includes, malformed);
  const includedPosts = readPosts(body.includes?.tweets ?? body.includes?.posts, included, malformed);
  const byId = new Map(includedPosts.map((post) => [post.id, post]));
  // An included post that quotes another included one (a retweet of a quote) shows it too.
  for (const post of includedPosts) {
    const quotedId = post.referencedPosts.find((reference) => reference.type === 'quoted')?.id;
    const quoted = quotedId === undefined ? undefined : byId.get(quotedId);
    if (quoted) post.quoted = quotedPost(quoted);
  }
  const posts = readPosts(body.data, included, malformed).map((post) => {
    let out = post;
    for (const reference of post.referencedPosts) {
      const referenced = byId.get(reference.id);
      if (!referenced) continue;
      if (reference.type === 'retweeted') out = wholeRetweet(out, referenced);
      else if (reference.type === 'quoted') out = { ...out, quoted: quotedPost(referenced) };
    }
    return out;
  });
  return { posts, includedPosts, errors: (body.errors ?? []).map(normalizeProblem), malformed };
}

/** The counts-only lookup: each post's id and counts, and the partial errors. */
export function normalizePostCounts(body: PostCountsResponse): XPostCountsLookup {
  return {
    posts: (body.data ?? []).map((post) => ({ id: post.id, metrics: post.public_metrics ? normalizeMetrics(post.public_metrics) : null })),
    errors: (body.errors ?? []).map(normalizeProblem),
  };
}

/** A post list answer (search, timeline, lookup) as the client reads it: checked, then normalised. Throws on a body that is not one. */
export function parsePostPage(body: unknown): XPostPage {
  return normalizePostPage(postListResponseSchema.parse(body));
}

export function normalizePostPage(body: PostListResponse): XPostPage {
  const lookup = normalizePostLookup(body);
  const meta = body.meta ?? {};
  return {
    ...lookup,
    meta: {
      resultCount: meta.result_count ?? lookup.posts.length,
      newestId: meta.newest_id ?? null,
      oldestId: meta.oldest_id ?? null,
      nextToken: meta.next_token ?? null,
    },
  };
}
