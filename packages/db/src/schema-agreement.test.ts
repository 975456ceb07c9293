import { readFileSync } from 'node:fs';
import path from 'node:path';
import { useTestEnvironment } from '@hashwatch/testing';
import { Prisma } from './generated/prisma/client';

// What a NULL item_extra stands for (@hashwatch/feed's DEFAULT_ITEM_EXTRA; the feed package builds on this one).
const DEFAULT_ITEM_EXTRA = ',"urls":[],"media":[],"quoted":null,"edited_at":null,"deleted":false';

interface ModelField {
  name: string;
  column: string;
  type: string;
  optional: boolean;
  list: boolean;
  /** `@ignore`: a column the database writes itself, left out of the client. */
  ignored: boolean;
}

const SCALARS = new Set(['String', 'Int', 'BigInt', 'Float', 'Boolean', 'DateTime', 'Decimal', 'Bytes', 'Json']);
const schemaText = readFileSync(path.resolve(__dirname, '../../../prisma/schema.prisma'), 'utf8');
const enumNames = new Set([...schemaText.matchAll(/^enum (\w+) \{/gm)].map((m) => m[1] as string));

/** Reads models, their tables and scalar fields (with column names) out of schema.prisma. */
function parseModels(): Map<string, { table: string; fields: ModelField[]; ignored: boolean }> {
  const models = new Map<string, { table: string; fields: ModelField[]; ignored: boolean }>();
  for (const match of schemaText.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const [, name, body] = match as unknown as [string, string, string];
    const table = /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? name;
    const fields: ModelField[] = [];
    for (const line of body.split('\n')) {
      const field = /^\s+(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/.exec(line);
      if (!field) continue;
      const [, fieldName, type, list, optional, rest] = field as unknown as [string, string, string, string | undefined, string | undefined, string];
      if (!SCALARS.has(type) && !enumNames.has(type)) continue;
      fields.push({
        name: fieldName,
        column: /@map\("([^"]+)"\)/.exec(rest)?.[1] ?? fieldName,
        type,
        optional: optional === '?',
        list: list === '[]',
        ignored: /@ignore\b/.test(rest),
      });
    }
    // `@@ignore`: a table only the database writes (by trigger), left out of the client.
    models.set(name, { table, fields, ignored: /^\s*@@ignore\b/m.test(body) });
  }
  return models;
}

const models = parseModels();

describe('schema.prisma and the migrated database', () => {
  const env = useTestEnvironment();

  it('have the same tables and columns, with the same nullability', async () => {
    const { rows } = await env.database.db.pool.query<{ table_name: string; column_name: string; is_nullable: 'YES' | 'NO'; data_type: string }>(
      `SELECT table_name, column_name, is_nullable, data_type FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    const dbTables = new Map<string, Map<string, { nullable: boolean; type: string }>>();
    for (const row of rows) {
      const columns = dbTables.get(row.table_name) ?? new Map();
      columns.set(row.column_name, { nullable: row.is_nullable === 'YES', type: row.data_type });
      dbTables.set(row.table_name, columns);
    }
    expect([...dbTables.keys()].sort()).toEqual([...models.values()].map((m) => m.table).sort());
    for (const model of models.values()) {
      const columns = dbTables.get(model.table);
      expect([...(columns?.keys() ?? [])].sort()).toEqual(model.fields.map((f) => f.column).sort());
      for (const field of model.fields) {
        const column = columns?.get(field.column);
        // Prisma itself creates list columns as nullable arrays.
        if (!field.list) expect({ column: `${model.table}.${field.column}`, nullable: column?.nullable }).toEqual({ column: `${model.table}.${field.column}`, nullable: field.optional });
        if (field.list) expect(column?.type).toBe('ARRAY');
      }
    }
  });

  it('round-trips every model and field through the Prisma client', async () => {
    const prisma = env.database.db.prisma;
    const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 1, 24, s, 123));
    const user = {
      id: 'usr_roundtrip', email: 'rt@example.com', planId: 'pro', hashtagsLimit: 1, accountsLimit: 2, engagementLimit: 3,
      webhooksLimit: 4, alertsLimit: 5, scanIntervalSeconds: 6, engagementRefreshSeconds: 7, rateLimitPerMinute: 8,
      subscriptionStatus: 'past_due' as const, currentPeriodStart: at(1), currentPeriodEnd: at(2), totpSecretEnc: 'v1.a.b.c',
      totpPendingSecretEnc: 'v1.d.e.f', totpLastStep: 123456789n, passwordHash: 'scrypt$32768$8$1$c2FsdA$aGFzaA', billingCustomerId: 'cus_rt',
      billingSubscriptionId: 'sub_rt', createdAt: at(3), updatedAt: at(4),
    };
    const plan = { id: 'rt', name: 'RT', hashtagsLimit: 1, accountsLimit: 2, engagementLimit: 3, webhooksLimit: 4, alertsLimit: 5, scanIntervalSeconds: 6, engagementRefreshSeconds: 7, rateLimitPerMinute: 8, retentionDays: 45, updatedAt: at(5) };
    const apiKey = { id: 'key_rt', userId: user.id, keyHash: new Uint8Array([1, 2, 3]), keyPrefix: 'hw_live_abcd', createdAt: at(6), revokedAt: at(7) };
    const track = { id: 'trk_rt', userId: user.id, hashtag: 'BTC', hashtagNorm: 'btc', lang: 'en', excludeRetweets: false, filters: { keywords_any: ['etf'], has_media: true }, trackEngagement: true, trackLikes: false, trackReposts: false, trackComments: false, status: 'active', createdAt: at(8), lastScannedAt: at(9), lastPostAt: at(10), scanError: 'x returned 503' };
    const accountTrack = { id: 'acc_rt', userId: user.id, username: 'Alice', usernameNorm: 'alice', xUserId: '42', excludeReplies: false, filters: { min_followers: 10 }, includeMentions: true, trackEngagement: true, trackLikes: false, trackReposts: false, trackComments: false, status: 'active', createdAt: at(11), lastScannedAt: at(12), lastPostAt: at(13), scanError: 'user suspended' };
    const feedItem = {
      id: 'post_rt', userId: user.id, dedupeKey: 'x:1', type: 'engagement' as const, hashtag: 'btc', account: 'alice', sources: ['#btc', '@alice'], xPostId: '1', authorId: '42', author: '@alice', authorName: 'Alice', text: 'hi', url: 'https://x.com/alice/status/1',
      lang: 'en', urls: [{ url: 'https://t.co/a', expanded_url: 'https://example.com/a', display_url: 'example.com/a' }],
      media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/a.jpg', preview_image_url: null, width: 10, height: 20, alt_text: null }],
      quoted: { id: '2', author: '@bob', author_name: 'Bob', text: 'q', url: 'https://x.com/bob/status/2' }, editedAt: at(15), deleted: true,
      postedAt: at(14), detectedAt: at(15), parentId: 'post_parent', kind: 'like' as const, engagementTracked: true, trackLikes: false, trackReposts: false, trackComments: false, retweetCount: 1, likeCount: 2, replyCount: 3,
      matchedBy: null, retweeters: ['@a'], likers: ['@b'], repliers: ['@c'], engagementUpdatedAt: at(16),
    };
    const usage = { userId: user.id, periodStart: at(17), periodEnd: at(18), alertsUsed: 9, upstreamPostsRead: new Prisma.Decimal('12.3456'), updatedAt: at(19) };
    const bySource = { userId: user.id, periodStart: at(17), source: '#btc', reads: new Prisma.Decimal('12.345678'), requests: new Prisma.Decimal('0.000001'), updatedAt: at(19) };
    const channel = { id: 'wh_rt', userId: user.id, kind: 'webhook' as const, position: 2, url: 'https://example.com/h', format: 'json', botName: 'Bot', hashtags: ['btc'], accounts: ['alice'], sourceFilter: 'hashtags', engagementAlerts: true, template: '{url}', enabled: false, signingSecretEnc: 'v1.s', botTokenEnc: 'v1.t', tokenHint: 'wxyz', chatId: '-100', disabledReason: 'discord answered 404', notices: true, failingSince: at(19), lastFailure: 'the receiver answered 500', lastFailureStatus: 500, failureNoticed: true, maxPerSecond: 25, createdAt: at(20), updatedAt: at(21) };
    const delivery = { id: 'dlv_rt', userId: user.id, channelId: channel.id, feedItemId: feedItem.id, messageId: 'msg_1', status: 'skipped' as const, attempts: 3, lastError: '500', lastStatus: 500, nextAttemptAt: at(22), deliveredAt: at(23), digestId: 'dig_1', claimToken: 'tok_1', late: true, createdAt: at(24), updatedAt: at(25) };
    const xPost = { id: '1', authorId: '42', authorUsername: 'alice', authorName: 'Alice', text: 'hi #btc', lang: 'en', conversationId: '1', isRetweet: true, isReply: true, authorVerified: true, authorFollowers: 1200, isQuote: false, hasLinks: true, postedAt: at(26), firstSeenAt: at(27), versionIds: ['1', '3'], editedAt: at(27), deletedAt: at(28), complianceJobId: '1900000000000000001', complianceCheckedAt: at(29) };
    const complianceJob = { id: '1900000000000000001', status: 'uploaded', postCount: 1, uploadUrl: 'https://storage.example/u', uploadExpiresAt: at(30), downloadUrl: 'https://storage.example/d', erased: 0, error: 'none', createdAt: at(29), finishedAt: at(31) };
    const engagement = { xPostId: '1', intervalSeconds: 60, pollUntil: at(28), nextPollAt: at(29), retweetCount: 1, likeCount: 2, replyCount: 3, sampledRetweets: 4, sampledLikes: 5, sampledReplies: 6, retweeters: ['@a'], likers: ['@b'], repliers: ['@c'], countsUpdatedAt: at(30), samplesUpdatedAt: at(31), createdAt: at(32) };
    const cursor = { sourceKey: 'tag:btc', sinceId: '99', notBefore: at(33), lastScanAt: at(34), lastError: 'timeout', updatedAt: at(35), intervalSeconds: 10, nextScanAt: at(38), claimedBy: 7, failures: 2, streamedSince: at(60), scanStartedAt: at(68), queryOperators: ['has:media', '-is:quote'], withMentions: true };
    const keyCheck = { id: 1, sealed: 'v1.c', createdAt: at(39), updatedAt: at(40) };
    const checkout = { id: 'chk_rt', userId: user.id, planId: 'rt', provider: 'stripe', providerSessionId: 'cs_rt', url: 'https://checkout.example/cs_rt', createdAt: at(41), completedAt: at(42) };
    const session = { id: 'ses_rt', userId: user.id, tokenHash: new Uint8Array([4, 5]), createdAt: at(43), lastSeenAt: at(44), expiresAt: at(45) };
    const challenge = { tokenHash: new Uint8Array([6]), userId: user.id, createdAt: at(46), expiresAt: at(47) };
    const reset = { tokenHash: new Uint8Array([7]), userId: user.id, createdAt: at(48), expiresAt: at(49) };
    const recoveryCode = { userId: user.id, codeHash: new Uint8Array([8]), createdAt: at(50) };
    const billingEvent = { provider: 'stripe', eventId: 'evt_rt', type: 'invoice.paid', processedAt: at(50) };
    const notice = { id: 'ntc_rt', userId: user.id, kind: 'channel_failing', subject: 'wh_rt', source: '#btc', channelId: channel.id, message: 'failing', openedAt: at(51), resolvedAt: at(52) };
    const noticeSend = { id: 'dlv_nrt', userId: user.id, noticeId: notice.id, state: 'resolved', channelId: channel.id, messageId: 'ntc_rt:resolved', status: 'delivered' as const, attempts: 2, lastError: '503', lastStatus: 503, nextAttemptAt: at(53), deliveredAt: at(54), claimToken: 'tok_2', createdAt: at(55), updatedAt: at(56) };
    const activity = { sourceKey: cursor.sourceKey, lastPostAt: at(57), gapHistogram: [0, 1.5, 2.25e6], samples: 20, longGaps: 1, silentSince: at(58), updatedAt: at(59) };
    const streamState = { id: 1, coveredUntil: at(61), connectedAt: at(62), marginSeconds: 30, staleSeconds: 60, updatedAt: at(63) };
    const streamGap = { startsAt: at(64), endsAt: at(65), createdAt: at(66), filledAt: at(67), attempts: 2, lastError: 'timeout', doneKeys: ['tag:btc'] };
    const scanShare = { userId: user.id, stretch: 4, demandPerHour: 2880.5, sharePerHour: 840.25, updatedAt: at(69) };
    const postSource = { sourceKey: 'tag:btc', xPostId: xPost.id };
    const outbox = { queue: 'alert-routing', name: 'route-alert', jobId: 'route-post_rt', payload: { feedItemId: 'post_rt', nested: [1, 'a', null] }, createdAt: at(36) };

    await prisma.plan.create({ data: plan });
    await prisma.user.create({ data: user });
    await prisma.apiKey.create({ data: apiKey });
    await prisma.track.create({ data: track });
    await prisma.accountTrack.create({ data: accountTrack });
    await prisma.feedItem.create({ data: feedItem });
    await prisma.usagePeriod.create({ data: usage });
    await prisma.upstreamUsageBySource.create({ data: bySource });
    await prisma.notificationChannel.create({ data: channel });
    await prisma.delivery.create({ data: delivery });
    await prisma.complianceJob.create({ data: complianceJob });
    await prisma.xPost.create({ data: xPost });
    await prisma.engagementState.create({ data: engagement });
    await prisma.xPostSource.create({ data: postSource });
    await prisma.sourceCursor.create({ data: cursor });
    await prisma.sourceActivity.create({ data: activity });
    await prisma.scanShare.create({ data: scanShare });
    await prisma.streamState.create({ data: streamState });
    const { id: gapId } = await prisma.streamGap.create({ data: streamGap });
    const { id: outboxId } = await prisma.outboxJob.create({ data: outbox });
    await prisma.feedClock.update({ where: { id: 1 }, data: { last: at(37) } });
    await prisma.secretsKeyCheck.create({ data: keyCheck });
    await prisma.checkout.create({ data: checkout });
    await prisma.session.create({ data: session });
    await prisma.loginChallenge.create({ data: challenge });
    await prisma.recoveryCode.create({ data: recoveryCode });
    await prisma.passwordReset.create({ data: reset });
    await prisma.billingEvent.create({ data: billingEvent });
    await prisma.notice.create({ data: notice });
    await prisma.noticeDelivery.create({ data: noticeSend });

    expect(await prisma.plan.findUnique({ where: { id: plan.id } })).toEqual(plan);
    expect(await prisma.user.findUnique({ where: { id: user.id } })).toEqual(user);
    expect(await prisma.apiKey.findUnique({ where: { id: apiKey.id } })).toEqual(apiKey);
    expect(await prisma.track.findUnique({ where: { id: track.id } })).toEqual(track);
    expect(await prisma.accountTrack.findUnique({ where: { id: accountTrack.id } })).toEqual(accountTrack);
    expect(await prisma.feedItem.findUnique({ where: { id: feedItem.id } })).toEqual(feedItem);
    const readUsage = await prisma.usagePeriod.findUniqueOrThrow({ where: { userId_periodStart: { userId: user.id, periodStart: usage.periodStart } } });
    expect({ ...readUsage, upstreamPostsRead: readUsage.upstreamPostsRead.toString() }).toEqual({ ...usage, upstreamPostsRead: '12.3456' });
    const readShare = await prisma.upstreamUsageBySource.findUniqueOrThrow({
      where: { userId_periodStart_source: { userId: user.id, periodStart: bySource.periodStart, source: bySource.source } },
    });
    expect({ ...readShare, reads: readShare.reads.toString(), requests: readShare.requests.toString() }).toEqual({ ...bySource, reads: '12.345678', requests: '0.000001' });
    expect(await prisma.notificationChannel.findUnique({ where: { id: channel.id } })).toEqual(channel);
    expect(await prisma.delivery.findUnique({ where: { id: delivery.id } })).toEqual(delivery);
    expect(await prisma.xPost.findUnique({ where: { id: xPost.id } })).toEqual(xPost);
    expect(await prisma.xPostSource.findUnique({ where: { sourceKey_xPostId: postSource } })).toEqual(postSource);
    expect(await prisma.complianceJob.findUnique({ where: { id: complianceJob.id } })).toEqual(complianceJob);
    expect(await prisma.engagementState.findUnique({ where: { xPostId: engagement.xPostId } })).toEqual(engagement);
    expect(await prisma.sourceCursor.findUnique({ where: { sourceKey: cursor.sourceKey } })).toEqual(cursor);
    expect(await prisma.sourceActivity.findUnique({ where: { sourceKey: activity.sourceKey } })).toEqual(activity);
    expect(await prisma.scanShare.findUnique({ where: { userId: user.id } })).toEqual(scanShare);
    expect(await prisma.streamState.findUnique({ where: { id: 1 } })).toEqual(streamState);
    expect(await prisma.streamGap.findUnique({ where: { id: gapId } })).toEqual({ id: gapId, ...streamGap });
    expect(await prisma.outboxJob.findUnique({ where: { id: outboxId } })).toEqual({ id: outboxId, ...outbox });
    expect(await prisma.feedClock.findUnique({ where: { id: 1 } })).toEqual({ id: 1, last: at(37) });
    expect(await prisma.secretsKeyCheck.findUnique({ where: { id: 1 } })).toEqual(keyCheck);
    expect(await prisma.checkout.findUnique({ where: { id: checkout.id } })).toEqual(checkout);
    expect(await prisma.session.findUnique({ where: { id: session.id } })).toEqual(session);
    expect(await prisma.loginChallenge.findUnique({ where: { tokenHash: challenge.tokenHash } })).toEqual(challenge);
    expect(await prisma.recoveryCode.findUnique({ where: { userId_codeHash: { userId: user.id, codeHash: recoveryCode.codeHash } } })).toEqual(recoveryCode);
    expect(await prisma.passwordReset.findUnique({ where: { tokenHash: reset.tokenHash } })).toEqual(reset);
    expect(await prisma.billingEvent.findUnique({ where: { provider_eventId: { provider: 'stripe', eventId: 'evt_rt' } } })).toEqual(billingEvent);
    expect(await prisma.notice.findUnique({ where: { id: notice.id } })).toEqual(notice);
    expect(await prisma.noticeDelivery.findUnique({ where: { id: noticeSend.id } })).toEqual(noticeSend);

    // Every scalar field of every model was written above and read back.
    const written: Record<string, object> = {
      Plan: plan, User: user, ApiKey: apiKey, Track: track, AccountTrack: accountTrack, FeedItem: feedItem, UsagePeriod: usage,
      UpstreamUsageBySource: bySource,
      NotificationChannel: channel, Delivery: delivery, XPost: xPost, XPostSource: postSource, ComplianceJob: complianceJob, EngagementState: engagement, SourceCursor: cursor,
      OutboxJob: { id: outboxId, ...outbox }, FeedClock: { id: 1, last: at(37) }, SecretsKeyCheck: keyCheck,
      Checkout: checkout, Session: session, LoginChallenge: challenge, RecoveryCode: recoveryCode, PasswordReset: reset, BillingEvent: billingEvent,
      Notice: notice, NoticeDelivery: noticeSend, SourceActivity: activity, ScanShare: scanShare, StreamState: streamState, StreamGap: { id: 1n, ...streamGap },
    };
    for (const [name, model] of models) {
      if (model.ignored) continue;
      const clientFields = model.fields.filter((f) => !f.ignored).map((f) => f.name);
      expect({ model: name, fields: Object.keys(written[name] ?? {}).sort() }).toEqual({ model: name, fields: clientFields.sort() });
    }
    // The fields the client leaves out are written by the database, also for rows the client creates.
    expect([...models.values()].flatMap((model) => model.fields.filter((f) => f.ignored).map((f) => `${model.table}.${f.column}`))).toEqual([
      'feed_items.item_head',
      'feed_items.item_extra',
      'outbox_jobs.weight',
    ]);
    const weight = await env.database.db.pool.query<{ weight: number }>('SELECT weight FROM outbox_jobs WHERE id = $1', [outboxId]);
    expect(weight.rows[0]?.weight).toBe(1);
    const { rows } = await env.database.db.pool.query<{ item_head: string }>(`SELECT item_head || COALESCE(item_extra, '${DEFAULT_ITEM_EXTRA}') AS item_head FROM feed_items WHERE id = $1`, [feedItem.id]);
    expect(JSON.parse(`${rows[0]?.item_head},"engagement":null}`)).toEqual({
      id: 'post_rt', type: 'engagement', hashtag: 'btc', account: 'alice', sources: ['#btc', '@alice'], author: '@alice', author_name: 'Alice', text: 'hi',
      url: 'https://x.com/alice/status/1', urls: feedItem.urls, media: feedItem.media, quoted: feedItem.quoted, lang: 'en', edited_at: '2026-11-22T01:24:15.123Z', deleted: true,
      posted_at: '2026-11-22T01:24:14.123Z', detected_at: '2026-11-22T01:24:15.123Z', parent_id: 'post_parent', kind: 'like',
      engagement: null,
    });
    // The one model the client leaves out is written by the database too: one row per source of the item.
    expect([...models].filter(([, model]) => model.ignored).map(([name]) => name)).toEqual(['FeedItemSource']);
    const sources = await env.database.db.pool.query<{ user_id: string; source: string; detected_at: Date; item_id: string; type: string }>(
      'SELECT user_id, source, detected_at, item_id, type FROM feed_item_sources ORDER BY source',
    );
    expect(sources.rows).toEqual(
      feedItem.sources.map((source) => ({ user_id: user.id, source, detected_at: feedItem.detectedAt, item_id: feedItem.id, type: feedItem.type })),
    );
  });

  it('keeps the Prisma migration bookkeeping that `prisma migrate deploy` reads', async () => {
    const { rows } = await env.database.db.pool.query<{ migration_name: string; finished_at: Date | null; checksum: string }>(
      'SELECT migration_name, finished_at, checksum FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.finished_at).not.toBeNull();
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});
