import { NAMING_KEYS, type Naming, type NamingKeys, type PostField, type UserField } from './field-catalog';
import type { FieldSelection } from './field-selection';
import type { SimPost, SimStore, SimUser } from '../store/sim-store';

type Json = Record<string, unknown>;

/** A data array plus its `includes`, and how many billable resources it carries. */
export interface SerializedPosts {
  data: Json[];
  includes: Json | undefined;
  postsServed: number;
  usersServed: number;
}

// X reports created_at with second precision and a ".000Z" suffix.
function timestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString();
}

/** Turns stored posts and users into X's JSON, showing only the fields asked for, in the configured spelling. */
export class Serializer {
  readonly keys: NamingKeys;

  constructor(
    private readonly store: SimStore,
    naming: Naming,
  ) {
    this.keys = NAMING_KEYS[naming];
  }

  post(post: SimPost, fields: ReadonlySet<PostField>): Json {
    // id, text and the edit history are X's default fields: always present.
    const out: Json = { id: post.id, text: post.text, [this.keys.editHistory]: [post.id] };
    if (fields.has('author_id')) out.author_id = post.authorId;
    if (fields.has('created_at')) out.created_at = timestamp(post.createdAt);
    if (fields.has('conversation_id')) out.conversation_id = post.conversationId;
    if (fields.has('lang')) out.lang = post.lang;
    if (fields.has('in_reply_to_user_id') && post.inReplyToUserId) out.in_reply_to_user_id = post.inReplyToUserId;
    if (fields.has('referenced') && post.references.length > 0) out[this.keys.referenced] = post.references.map((ref) => ({ ...ref }));
    if (fields.has('possibly_sensitive')) out.possibly_sensitive = false;
    if (fields.has('reply_settings')) out.reply_settings = 'everyone';
    if (fields.has('public_metrics')) {
      const m = post.metrics;
      out.public_metrics = {
        [this.keys.retweetCount]: m.retweets,
        reply_count: m.replies,
        like_count: m.likes,
        quote_count: m.quotes,
        bookmark_count: m.bookmarks,
        impression_count: m.impressions,
      };
    }
    if (fields.has('entities')) {
      const entities = this.entities(post);
      if (entities) out.entities = entities;
    }
    return out;
  }

  user(user: SimUser, fields: ReadonlySet<UserField>): Json {
    const out: Json = { id: user.id, name: user.name, username: user.username };
    if (fields.has('created_at')) out.created_at = timestamp(user.createdAt);
    if (fields.has('description')) out.description = user.description;
    if (fields.has('location') && user.location !== null) out.location = user.location;
    if (fields.has('protected')) out.protected = user.protected;
    if (fields.has('verified')) out.verified = user.verified;
    if (fields.has('public_metrics')) {
      out.public_metrics = {
        followers_count: user.followersCount,
        following_count: user.followingCount,
        [this.keys.userPostCount]: user.postCount,
        listed_count: user.listedCount,
      };
    }
    return out;
  }

  posts(posts: readonly SimPost[], selection: FieldSelection): SerializedPosts {
    const users = new Map<string, SimUser>();
    const included = new Map<string, SimPost>();
    const addUser = (id: string | null | undefined) => {
      const user = id ? this.store.userById(id) : undefined;
      if (user && !users.has(user.id)) users.set(user.id, user);
    };
    const { expansions } = selection;
    for (const post of posts) {
      if (expansions.has('author')) addUser(post.authorId);
      if (expansions.has('reply_user')) addUser(post.inReplyToUserId);
      if (expansions.has('mentions')) for (const mention of post.entities.mentions) addUser(this.store.userByUsername(mention.username)?.id);
      for (const reference of post.references) {
        const referenced = this.store.post(reference.id);
        if (!referenced) continue;
        if (expansions.has('referenced')) included.set(referenced.id, referenced);
        if (expansions.has('referenced_author')) addUser(referenced.authorId);
      }
    }
    const includes: Json = {};
    if (users.size > 0) includes.users = [...users.values()].map((user) => this.user(user, selection.user));
    if (included.size > 0) includes[this.keys.includedPosts] = [...included.values()].map((post) => this.post(post, selection.post));
    return {
      data: posts.map((post) => this.post(post, selection.post)),
      includes: Object.keys(includes).length > 0 ? includes : undefined,
      postsServed: posts.length + included.size,
      usersServed: users.size,
    };
  }

  private entities(post: SimPost): Json | undefined {
    const out: Json = {};
    const { hashtags, cashtags, mentions } = post.entities;
    if (hashtags.length > 0) out.hashtags = hashtags.map((entity) => ({ ...entity }));
    if (cashtags.length > 0) out.cashtags = cashtags.map((entity) => ({ ...entity }));
    if (mentions.length > 0) {
      out.mentions = mentions.map((mention) => {
        const user = this.store.userByUsername(mention.username);
        return user ? { ...mention, id: user.id } : { ...mention };
      });
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
}
