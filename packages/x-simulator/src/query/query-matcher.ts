import type { QueryNode, QueryTerm } from './query-ast';
import { containsTokens } from '../store/text-tokens';
import type { SimPost, SimUser } from '../store/sim-store';

/** What matching needs besides the post: its author and the user it replies to. */
export interface MatchContext {
  author: SimUser | undefined;
  repliedToUser: SimUser | undefined;
}

const REFERENCE_OF = { retweet: 'retweeted', reply: 'replied_to', quote: 'quoted' } as const;

function userMatches(user: SimUser | undefined, value: string): boolean {
  return user !== undefined && (user.id === value || user.username.toLowerCase() === value);
}

function termMatches(term: QueryTerm, post: SimPost, context: MatchContext): boolean {
  switch (term.type) {
    case 'hashtag':
      return post.hashtagKeys.has(term.tag);
    case 'cashtag':
      return post.cashtagKeys.has(term.tag);
    case 'mention':
      return post.entities.mentions.some((mention) => mention.username.toLowerCase() === term.username);
    case 'keyword':
    case 'phrase':
      return containsTokens(post.tokens, term.tokens);
    case 'from':
      return userMatches(context.author, term.user);
    case 'to':
      return userMatches(context.repliedToUser, term.user);
    case 'conversation_id':
      return post.conversationId === term.id;
    case 'lang':
      return post.lang.toLowerCase() === term.lang;
    case 'is': {
      if (term.what === 'verified') return context.author?.verified === true;
      const type = REFERENCE_OF[term.what];
      return post.references.some((reference) => reference.type === type);
    }
    case 'has':
      // X: has:media is a photo, GIF or video attached; has:links any link in the body, a media page's included.
      if (term.what === 'media') return post.media.length > 0;
      if (term.what === 'links') return post.entities.urls.length > 0 || post.media.length > 0;
      return post.entities[term.what].length > 0;
    case 'min': {
      const { likes, replies, retweets } = post.metrics;
      return { likes, replies, reposts: retweets }[term.metric] >= term.value;
    }
  }
}

/** True when the post satisfies the parsed query. */
export function matchesQuery(node: QueryNode, post: SimPost, context: MatchContext): boolean {
  switch (node.kind) {
    case 'term':
      return termMatches(node.term, post, context);
    case 'not':
      return !matchesQuery(node.child, post, context);
    case 'and':
      return node.children.every((child) => matchesQuery(child, post, context));
    case 'or':
      return node.children.some((child) => matchesQuery(child, post, context));
  }
}
