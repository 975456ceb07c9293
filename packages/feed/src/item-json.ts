/**
 * The JSON members of a feed item's `urls`, `media`, `quoted`, `edited_at` and `deleted` while they hold their
 * defaults: what a NULL `item_extra` stands for (prisma/migrations/20261128100000_post_content).
 */
export const DEFAULT_ITEM_EXTRA = ',"urls":[],"media":[],"quoted":null,"edited_at":null,"deleted":false';

/**
 * SQL for an item's JSON object as GET /v1/posts shows it, without `engagement` and the closing brace: the head
 * and the extra members the trigger `feed_items_head` writes, on the feed_items row aliased `alias`.
 */
export function itemJsonSql(alias: string): string {
  return `${alias}.item_head || COALESCE(${alias}.item_extra, '${DEFAULT_ITEM_EXTRA}')`;
}
