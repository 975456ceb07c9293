import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { deletedSchema, engagementFlagsPatchSchema } from '../sources/engagement-flags.schema';
import { accountTrackIdParamsSchema, accountTrackListSchema, accountTrackSchema, createAccountTrackSchema } from './accounts.schema';
import { createAccountTrack, deleteAccountTrack, listAccountTracks, updateAccountTrackFlags } from './accounts.service';

export function registerAccountRoutes(api: ApiBuilder, deps: GatewayDeps): void {
  const { pool } = deps.db;
  api.route({
    method: 'get',
    path: '/accounts',
    tag: 'Accounts',
    summary: 'List the X accounts this account tracks, oldest first, with each source’s scan health.',
    success: { status: 200, description: 'Every account track.', schema: accountTrackListSchema },
    handler: async ({ auth }) => ({ data: await listAccountTracks(pool, auth.userId) }),
  });
  api.route({
    method: 'post',
    path: '/accounts',
    tag: 'Accounts',
    summary: 'Track an X account by handle.',
    description: 'Only posts published after creation are detected.',
    body: createAccountTrackSchema,
    success: { status: 201, description: 'The created account track, every field.', schema: accountTrackSchema },
    errors: ['plan_limit_reached', 'already_exists'],
    handler: ({ auth, body }) => createAccountTrack(pool, auth.userId, body, deps.now()),
  });
  api.route({
    method: 'patch',
    path: '/accounts/{id}',
    tag: 'Accounts',
    summary: 'Change the engagement flags of an account track; takes effect at the next refresh.',
    params: accountTrackIdParamsSchema,
    body: engagementFlagsPatchSchema,
    success: { status: 200, description: 'The whole updated account track.', schema: accountTrackSchema },
    errors: ['not_found', 'plan_limit_reached'],
    handler: ({ auth, params, body }) => updateAccountTrackFlags(pool, auth.userId, params.id, body),
  });
  api.route({
    method: 'delete',
    path: '/accounts/{id}',
    tag: 'Accounts',
    summary: 'Stop tracking an account. Posts already detected stay in the feed.',
    params: accountTrackIdParamsSchema,
    success: { status: 200, description: 'The account track is gone.', schema: deletedSchema },
    errors: ['not_found'],
    handler: async ({ auth, params }) => {
      await deleteAccountTrack(pool, auth.userId, params.id);
      return { id: params.id, deleted: true as const };
    },
  });
}
