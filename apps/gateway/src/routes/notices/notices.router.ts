import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { noticeCursor } from './notice-cursor';
import { listNoticesQuerySchema, noticeListSchema } from './notices.schema';
import { listNotices } from './notices.service';

export function registerNoticeRoutes(api: ApiBuilder, deps: GatewayDeps): void {
  const { pool } = deps.db;
  const cursors = noticeCursor(deps.secretsKey);
  api.route({
    method: 'get',
    path: '/notices',
    tag: 'Notices',
    summary: 'Read the system notices: what Hashwatch noticed about the account’s own monitoring, newest first, with cursor pagination.',
    description:
      'One notice per episode of a condition (a silent or failing source, a failing or disabled channel, the alert quota at 80 % and ' +
      '100 %): `open` while it holds, `resolved` once it ended. The same notices reach the channels whose `notices` switch is on ' +
      '(`PUT /notifications`). Pages follow `next_cursor`.',
    query: listNoticesQuerySchema,
    success: { status: 200, description: 'One page of notices.', schema: noticeListSchema },
    handler: ({ auth, query }) => listNotices(pool, cursors, auth.userId, query),
  });
}
