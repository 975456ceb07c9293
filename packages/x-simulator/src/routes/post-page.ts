import type { FieldSelection } from '../fields/field-selection';
import type { ServedAnswer } from '../http/endpoint-pipeline';
import { encodeIdToken } from '../http/pagination-token';
import type { SimulatorState } from '../simulator-state';
import type { SimPost } from '../store/sim-store';

/**
 * Takes up to `max` posts from a newest-first stream and answers X's page shape: `data` (absent when empty),
 * `includes`, and `meta` with newest_id, oldest_id, result_count and a next_token when more remain.
 */
export function postPage(state: SimulatorState, posts: Iterable<SimPost>, max: number, selection: FieldSelection): ServedAnswer {
  const page: SimPost[] = [];
  let more = false;
  for (const post of posts) {
    if (page.length === max) {
      more = true;
      break;
    }
    page.push(post);
  }
  if (page.length === 0) return { status: 200, body: { meta: { result_count: 0 } } };
  const serialized = state.serializer.posts(page, selection);
  const meta: Record<string, unknown> = { newest_id: page[0]!.id, oldest_id: page[page.length - 1]!.id, result_count: page.length };
  if (more) meta.next_token = encodeIdToken(page[page.length - 1]!.num);
  const body: Record<string, unknown> = { data: serialized.data };
  if (serialized.includes) body.includes = serialized.includes;
  if (serialized.errors.length > 0) body.errors = serialized.errors;
  body.meta = meta;
  return { status: 200, body, postsServed: serialized.postsServed, usersServed: serialized.usersServed };
}

/** Keeps posts that pass `keep`, stopping once posts are older than `oldest` (ids grow with time). */
export function* filterPosts(posts: Iterable<SimPost>, oldest: number, keep: (post: SimPost) => boolean): Generator<SimPost> {
  for (const post of posts) {
    if (post.createdAt < oldest) return;
    if (keep(post)) yield post;
  }
}
