import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { deletedSchema, engagementFlagsPatchSchema } from '../sources/engagement-flags.schema';
import { createTrackSchema, trackIdParamsSchema, trackListSchema, trackSchema } from './tracks.schema';
import { createTrack, deleteTrack, listTracks, updateTrackFlags } from './tracks.service';

export function registerTrackRoutes(api: ApiBuilder, deps: GatewayDeps): void {
  const { pool } = deps.db;
  api.route({
    method: 'get',
    path: '/tracks',
    tag: 'Tracks',
    summary: 'List the hashtags this account tracks, oldest first, with each source’s scan health.',
    success: { status: 200, description: 'Every track of the account.', schema: trackListSchema },
    handler: async ({ auth }) => ({ data: await listTracks(pool, auth.userId) }),
  });
  api.route({
    method: 'post',
    path: '/tracks',
    tag: 'Tracks',
    summary: 'Track a hashtag (matches #tag and $tag).',
    description: 'Only posts published after creation are detected.',
    body: createTrackSchema,
    success: { status: 201, description: 'The created track, every field.', schema: trackSchema },
    errors: ['plan_limit_reached', 'already_exists'],
    handler: ({ auth, body }) => createTrack(pool, auth.userId, body, deps.now()),
  });
  api.route({
    method: 'patch',
    path: '/tracks/{id}',
    tag: 'Tracks',
    summary: 'Change the engagement flags of a track; takes effect at the next refresh.',
    params: trackIdParamsSchema,
    body: engagementFlagsPatchSchema,
    success: { status: 200, description: 'The whole updated track.', schema: trackSchema },
    errors: ['not_found', 'plan_limit_reached'],
    handler: ({ auth, params, body }) => updateTrackFlags(pool, auth.userId, params.id, body),
  });
  api.route({
    method: 'delete',
    path: '/tracks/{id}',
    tag: 'Tracks',
    summary: 'Stop tracking a hashtag. Posts already detected stay in the feed.',
    params: trackIdParamsSchema,
    success: { status: 200, description: 'The track is gone.', schema: deletedSchema },
    errors: ['not_found'],
    handler: async ({ auth, params }) => {
      await deleteTrack(pool, auth.userId, params.id);
      return { id: params.id, deleted: true as const };
    },
  });
}
