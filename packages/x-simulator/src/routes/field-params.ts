import {
  MEDIA_FIELD_NAMES,
  PLACE_FIELD_NAMES,
  POLL_FIELD_NAMES,
  POST_EXPANSION_NAMES,
  POST_FIELD_NAMES,
  USER_EXPANSION_NAMES,
  USER_FIELD_NAMES,
} from '../fields/field-catalog';
import { selectFields, type FieldSelection } from '../fields/field-selection';
import { listParam } from '../http/query-params';

// Polls and places are not modelled: their field lists are checked against X's names and have no effect.
const otherFields = {
  'media.fields': listParam('media.fields', MEDIA_FIELD_NAMES),
  'poll.fields': listParam('poll.fields', POLL_FIELD_NAMES),
  'place.fields': listParam('place.fields', PLACE_FIELD_NAMES),
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
  'media.fields'?: string[];
  expansions?: string[];
}): FieldSelection {
  return selectFields({
    postFields: [...(params['tweet.fields'] ?? []), ...(params['post.fields'] ?? [])],
    userFields: params['user.fields'],
    mediaFields: params['media.fields'],
    expansions: params.expansions,
  });
}
