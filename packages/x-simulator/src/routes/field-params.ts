import { POST_EXPANSION_NAMES, POST_FIELD_NAMES, USER_EXPANSION_NAMES, USER_FIELD_NAMES } from '../fields/field-catalog';
import { selectFields, type FieldSelection } from '../fields/field-selection';
import { listParam, patternListParam } from '../http/query-params';

// Media, polls and places are not modelled: their field lists are accepted and have no effect.
const otherFields = {
  'media.fields': patternListParam('media.fields', /^[a-z_.]+$/, 100),
  'poll.fields': patternListParam('poll.fields', /^[a-z_.]+$/, 100),
  'place.fields': patternListParam('place.fields', /^[a-z_.]+$/, 100),
};

/** Field parameters of endpoints that answer posts. `tweet.fields` and `post.fields` are both accepted. */
export const postFieldParams = {
  'tweet.fields': listParam('tweet.fields', POST_FIELD_NAMES),
  'post.fields': listParam('post.fields', POST_FIELD_NAMES),
  expansions: listParam('expansions', POST_EXPANSION_NAMES),
  'user.fields': listParam('user.fields', USER_FIELD_NAMES),
  ...otherFields,
};

/** Field parameters of endpoints that answer users. */
export const userFieldParams = {
  'user.fields': listParam('user.fields', USER_FIELD_NAMES),
  expansions: listParam('expansions', USER_EXPANSION_NAMES),
  'tweet.fields': listParam('tweet.fields', POST_FIELD_NAMES),
  'post.fields': listParam('post.fields', POST_FIELD_NAMES),
};

export function selectionOf(params: {
  'tweet.fields'?: string[];
  'post.fields'?: string[];
  'user.fields'?: string[];
  expansions?: string[];
}): FieldSelection {
  return selectFields({
    postFields: [...(params['tweet.fields'] ?? []), ...(params['post.fields'] ?? [])],
    userFields: params['user.fields'],
    expansions: params.expansions,
  });
}
