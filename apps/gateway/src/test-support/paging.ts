/** One page of a cursor-paged list, as every such route answers it. */
export interface CursorPage {
  data: { id: string }[];
  next_cursor: string | null;
}

/**
 * Follows `next_cursor` from the first page to the last (at most 1,000 pages): every id in the order served, and
 * how many pages it took. `fetchPage` asks for one page with the query given (a cursor added after the first).
 */
export async function followCursor(
  fetchPage: (query: Record<string, string | number>) => Promise<CursorPage>,
  query: Record<string, string | number> = {},
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: CursorPage = await fetchPage(cursor ? { ...query, cursor } : query);
    ids.push(...page.data.map((item) => item.id));
    cursor = page.next_cursor;
    pages += 1;
  } while (cursor && pages < 1000);
  return { ids, pages };
}
