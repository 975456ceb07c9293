import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { previewFilters } from '../sources/filter-preview';
import { registerSourceRoutes } from '../sources/source-routes';
import { createTrackSchema, trackIdParamsSchema, trackListSchema, trackSchema } from './tracks.schema';
import { createTrack, deleteTrack, listTracks, updateTrack } from './tracks.service';

export function registerTrackRoutes(api: ApiBuilder, deps: GatewayDeps): void {
  const { pool } = deps.db;
  registerSourceRoutes(api, {
    path: '/tracks',
    tag: 'Tracks',
    docs: {
      list: 'List the hashtags this account tracks, oldest first, with each source’s scan health.',
      listed: 'Every track of the account.',
      create: 'Track a hashtag (matches #tag and $tag).',
      createDescription: 'Only posts published after creation are detected.',
      created: 'The created track, every field.',
      patch: 'Change the engagement flags or the filters of a track: flags take effect at the next refresh, filters at the next scan.',
      patched: 'The whole updated track.',
      remove: 'Stop tracking a hashtag. Posts already detected stay in the feed.',
      removed: 'The track is gone.',
    },
    schemas: { create: createTrackSchema, source: trackSchema, list: trackListSchema, idParams: trackIdParamsSchema },
    service: {
      list: async (userId) => ({ data: await listTracks(pool, userId) }),
      create: (userId, input) => createTrack(pool, userId, input, deps.now()),
      update: (userId, id, patch) => updateTrack(pool, userId, id, patch),
      preview: (userId, id, filters) => previewFilters(pool, { table: 'tracks', noun: 'track' }, userId, id, filters),
      remove: (userId, id) => deleteTrack(pool, userId, id),
    },
  });
}
