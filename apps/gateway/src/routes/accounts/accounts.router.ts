import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { previewFilters } from '../sources/filter-preview';
import { accountTrackPatchSchema } from '../sources/source-fields.schema';
import { registerSourceRoutes } from '../sources/source-routes';
import { accountTrackIdParamsSchema, accountTrackListSchema, accountTrackSchema, createAccountTrackSchema } from './accounts.schema';
import { createAccountTrack, deleteAccountTrack, listAccountTracks, updateAccountTrack } from './accounts.service';

export function registerAccountRoutes(api: ApiBuilder, deps: GatewayDeps): void {
  const { pool } = deps.db;
  registerSourceRoutes(api, {
    path: '/accounts',
    tag: 'Accounts',
    docs: {
      list: 'List the X accounts this account tracks, oldest first, with each source’s scan health.',
      listed: 'Every account track.',
      create: 'Track an X account by handle.',
      createDescription: 'Only posts published after creation are detected.',
      created: 'The created account track, every field.',
      patch: 'Change the engagement flags, mentions or filters of an account track: flags take effect at the next refresh, mentions and filters at the next scan.',
      patched: 'The whole updated account track.',
      remove: 'Stop tracking an account. Posts already detected stay in the feed.',
      removed: 'The account track is gone.',
    },
    schemas: { patch: accountTrackPatchSchema, create: createAccountTrackSchema, source: accountTrackSchema, list: accountTrackListSchema, idParams: accountTrackIdParamsSchema },
    service: {
      list: async (userId) => ({ data: await listAccountTracks(pool, userId) }),
      create: (userId, input) => createAccountTrack(pool, userId, input, deps.now()),
      update: (userId, id, patch) => updateAccountTrack(pool, userId, id, patch),
      preview: (userId, id, filters) => previewFilters(pool, { table: 'account_tracks', noun: 'account' }, userId, id, filters),
      remove: (userId, id) => deleteAccountTrack(pool, userId, id),
    },
  });
}
