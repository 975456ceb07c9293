/** One operator of X's search language, already validated. */
export type QueryTerm =
  | { type: 'hashtag'; tag: string }
  | { type: 'cashtag'; tag: string }
  | { type: 'mention'; username: string }
  | { type: 'keyword'; tokens: string[] }
  | { type: 'phrase'; tokens: string[] }
  | { type: 'from'; user: string }
  | { type: 'to'; user: string }
  | { type: 'conversation_id'; id: string }
  | { type: 'lang'; lang: string }
  | { type: 'is'; what: 'retweet' | 'reply' | 'quote' | 'verified' }
  | { type: 'has'; what: 'hashtags' | 'cashtags' | 'mentions' | 'media' | 'links' }
  | { type: 'min'; metric: 'likes' | 'replies' | 'reposts'; value: number };

export type QueryNode =
  | { kind: 'and'; children: QueryNode[] }
  | { kind: 'or'; children: QueryNode[] }
  | { kind: 'not'; child: QueryNode }
  | { kind: 'term'; term: QueryTerm };

/** A query X refuses; `message` follows X's wording where it is known. */
export class QuerySyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuerySyntaxError';
  }
}
