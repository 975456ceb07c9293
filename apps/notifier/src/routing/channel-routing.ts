/** What routing needs of a channel: its scope, source filter and engagement opt-in. */
export interface RoutingChannel {
  id: string;
  /** Lower-case, without `#`. Empty together with `accounts`: every source. */
  hashtags: string[];
  /** Lower-case, without `@`. */
  accounts: string[];
  sourceFilter: 'all' | 'hashtags' | 'accounts';
  engagementAlerts: boolean;
}

/** What routing needs of a feed item. */
export interface RoutingItem {
  type: 'hashtag' | 'account' | 'engagement';
  /** Every matched source, prefixed (`#btc`, `$tsla`, `@alice`). */
  sources: string[];
  hashtag: string | null;
  account: string | null;
  kind: 'retweet' | 'like' | 'reply' | null;
}

/** The category switches of the source, as the engaged (parent) item recorded them at detection. */
export interface EngagementCategories {
  trackLikes: boolean;
  trackReposts: boolean;
  trackComments: boolean;
}

type Source = { kind: 'hashtag' | 'account'; name: string; label: string };

function parseSource(label: string): Source | undefined {
  const name = label.slice(1).toLowerCase();
  if (name === '') return undefined;
  // A track matches both `#tag` and `$tag`, so both are hashtag sources.
  if (label.startsWith('#') || label.startsWith('$')) return { kind: 'hashtag', name, label };
  if (label.startsWith('@')) return { kind: 'account', name, label };
  return undefined;
}

/** The item's sources; items stored without `sources` fall back to their `hashtag` / `account` fields. */
function sourcesOf(item: RoutingItem): Source[] {
  const labels = item.sources.length > 0 ? item.sources : [item.hashtag ? `#${item.hashtag}` : '', item.account ? `@${item.account}` : ''];
  return labels.flatMap((label) => parseSource(label) ?? []);
}

function inScope(channel: RoutingChannel, source: Source): boolean {
  if (channel.hashtags.length === 0 && channel.accounts.length === 0) return true;
  return source.kind === 'hashtag' ? channel.hashtags.includes(source.name) : channel.accounts.includes(source.name);
}

function passesFilter(channel: RoutingChannel, source: Source): boolean {
  if (channel.sourceFilter === 'hashtags') return source.kind === 'hashtag';
  if (channel.sourceFilter === 'accounts') return source.kind === 'account';
  return true;
}

function categoryOn(kind: RoutingItem['kind'], categories: EngagementCategories): boolean {
  if (kind === 'like') return categories.trackLikes;
  if (kind === 'retweet') return categories.trackReposts;
  if (kind === 'reply') return categories.trackComments;
  return false;
}

/**
 * The source this channel alerts the item for (`#btc`, `@alice`), or undefined when the channel does not get
 * it. The scope comes first (empty hashtags and accounts mean every source), then the
 * source filter. Engagement items need the channel's opt-in and the category switched on for the source;
 * they ignore the source filter, not the scope.
 */
export function matchingSource(channel: RoutingChannel, item: RoutingItem, categories: EngagementCategories): string | undefined {
  const scoped = sourcesOf(item).filter((source) => inScope(channel, source));
  if (item.type === 'engagement') {
    if (!channel.engagementAlerts || !categoryOn(item.kind, categories)) return undefined;
    return scoped[0]?.label;
  }
  return scoped.find((source) => passesFilter(channel, source))?.label;
}
