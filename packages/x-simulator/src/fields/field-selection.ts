import {
  MEDIA_FIELD_ALIASES,
  POST_EXPANSION_ALIASES,
  POST_FIELD_ALIASES,
  USER_FIELD_ALIASES,
  type MediaField,
  type PostExpansion,
  type PostField,
  type UserField,
} from './field-catalog';

/** What a request asked to see, under canonical names. Names X knows but the simulator does not model are dropped. */
export interface FieldSelection {
  post: Set<PostField>;
  user: Set<UserField>;
  media: Set<MediaField>;
  expansions: Set<PostExpansion>;
}

function pick<T>(values: readonly string[] | undefined, aliases: Record<string, T>): Set<T> {
  const picked = new Set<T>();
  for (const value of values ?? []) {
    const canonical = aliases[value];
    if (canonical !== undefined) picked.add(canonical);
  }
  return picked;
}

/** Builds the selection from validated `tweet.fields` / `post.fields`, `user.fields` and `expansions` lists. */
export function selectFields(query: {
  postFields?: readonly string[];
  userFields?: readonly string[];
  mediaFields?: readonly string[];
  expansions?: readonly string[];
}): FieldSelection {
  return {
    post: pick(query.postFields, POST_FIELD_ALIASES),
    user: pick(query.userFields, USER_FIELD_ALIASES),
    media: pick(query.mediaFields, MEDIA_FIELD_ALIASES),
    expansions: pick(query.expansions, POST_EXPANSION_ALIASES),
  };
}

/** Every field the simulator models: the control API shows posts this way. */
export const ALL_FIELDS: FieldSelection = {
  post: new Set(Object.values(POST_FIELD_ALIASES)),
  user: new Set(Object.values(USER_FIELD_ALIASES)),
  media: new Set(Object.values(MEDIA_FIELD_ALIASES)),
  expansions: new Set(['author']),
};
