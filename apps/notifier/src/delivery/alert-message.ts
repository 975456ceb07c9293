import type { AlertPost } from '@hashwatch/channels';
import type { ClaimedDelivery } from './delivery-store';

function bare(source: string): string {
  return source.slice(1);
}

/**
 * How the account source the alert was routed for matched the post: the item's own answer when that source is the
 * item's account; otherwise (a second account source, or an item whose first source was a hashtag) by whether that
 * account wrote it.
 */
function matchedBy(delivery: ClaimedDelivery, label: string): 'author' | 'mention' {
  if (delivery.type === 'account' && delivery.account && label.toLowerCase() === `@${delivery.account.toLowerCase()}`) return delivery.matched_by ?? 'author';
  return delivery.author.toLowerCase() === label.toLowerCase() ? 'author' : 'mention';
}

/**
 * The alert for one claimed delivery. `source` is the source this channel was routed for (its scope may pick
 * `@alice` out of `["#btc", "@alice"]`); `hashtag` / `account` follow it, bare (`alice`) as the feed has them.
 * `sources` are stored lower-case while the item's own `hashtag` / `account` keep the case the user wrote the
 * track in (`NIO`), so for that source the item's own spelling is used: a json payload then equals its feed item.
 */
export function alertFor(delivery: ClaimedDelivery, source: string | undefined): AlertPost {
  const label = source ?? delivery.sources[0] ?? (delivery.hashtag ? `#${delivery.hashtag}` : `@${delivery.account ?? ''}`);
  const isAccount = label.startsWith('@');
  const own = isAccount ? delivery.account : delivery.hashtag;
  const name = own && own.toLowerCase() === bare(label).toLowerCase() ? own : bare(label);
  const alert: AlertPost = {
    id: delivery.feed_item_id,
    type: delivery.type,
    source: label,
    hashtag: isAccount ? '' : name,
    account: isAccount ? name : '',
    ...(delivery.type !== 'engagement' && isAccount ? { matched_by: matchedBy(delivery, label) } : {}),
    author: delivery.author,
    author_name: delivery.author_name,
    text: delivery.text,
    url: delivery.url,
    urls: delivery.urls ?? [],
    media: delivery.media ?? [],
    quoted: delivery.quoted,
    lang: delivery.lang,
    edited_at: delivery.edited_at ? delivery.edited_at.toISOString() : null,
    deleted: delivery.deleted,
    posted_at: delivery.posted_at ? delivery.posted_at.toISOString() : null,
    detected_at: delivery.detected_at.toISOString(),
    ...(delivery.late ? { late: true } : {}),
  };
  if (delivery.type !== 'engagement') return alert;
  return {
    ...alert,
    ...(delivery.kind ? { kind: delivery.kind } : {}),
    ...(delivery.parent_id ? { parent_id: delivery.parent_id } : {}),
    ...(delivery.parent_url ? { parent_url: delivery.parent_url } : {}),
    ...(delivery.parent_text ? { parent_text: delivery.parent_text } : {}),
  };
}
