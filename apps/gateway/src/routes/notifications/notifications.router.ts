import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { tightLimit } from '../../middleware/tight-limit';
import { deliveryCursor } from './delivery-cursor';
import { deliveryIdParamsSchema, deliveryListSchema, deliverySchema, listDeliveriesQuerySchema } from './deliveries.schema';
import { listDeliveries, retryDelivery } from './deliveries.service';
import type { NotificationOptions } from './notification-options';
import { sendTestAlert } from './notification-test.service';
import { notificationConfigInputSchema, notificationConfigSchema, notificationTestResultSchema, notificationTestSchema } from './notifications.schema';
import { getNotificationConfig, putNotificationConfig } from './notifications.service';

/** `POST /notifications/test` is limited to 10 per minute per account (each sends a real message). */
export const TESTS_PER_MINUTE = 10;

export function registerNotificationRoutes(api: ApiBuilder, deps: GatewayDeps, options: NotificationOptions): void {
  const { pool } = deps.db;
  const testLimit = tightLimit(deps, 'notifications-test', 'POST /notifications/test', TESTS_PER_MINUTE, 60);
  const cursors = deliveryCursor(deps.secretsKey);

  api.route({
    method: 'get',
    path: '/notifications',
    tag: 'Notifications',
    summary: 'Read the webhook channels and the bot channel.',
    description:
      'Before any PUT: `{"webhooks": [], "bot": null}`. Beyond the documented fields, each channel has `disabled_reason`: null, or why ' +
      'Hashwatch stopped delivering to it (the platform said the destination is gone). Signing secrets are shown to their account; the ' +
      'bot token never is (`token_hint` shows its last 4 characters).',
    success: { status: 200, description: 'The saved configuration.', schema: notificationConfigSchema },
    handler: ({ auth }) => getNotificationConfig(pool, deps.cipher, auth.userId),
  });
  api.route({
    method: 'put',
    path: '/notifications',
    tag: 'Notifications',
    summary: 'Replace the whole notification configuration.',
    description: [
      'Whole replacement, answered with the saved configuration. Omitted fields take their defaults; an omitted `webhooks` means none',
      'and an omitted or null `bot` removes the bot channel.',
      'A webhook with the `id` of one of this account’s webhooks keeps its identity and signing secret; one without `id` is new and gets',
      'a new id and secret; an `id` this account does not have answers 400. Webhooks not listed are deleted, with their delivery log.',
      '`bot.token` is write-only and required only when adding the bot: omitted, the saved token is kept; so is a channel’s saved',
      '`notices` switch when `notices` is omitted (a new channel then follows its platform’s default; a webhook moved between `json`',
      'and Discord or Slack takes its new platform’s default). The read-only fields of the',
      'GET answer (`signing_secret`, `token_hint`, `disabled_reason`) may be sent back unchanged. Saving `enabled: true` clears',
      '`disabled_reason`. More webhooks than the plan’s `webhooks_limit` answers 403 `plan_limit_reached`; a refused PUT saves nothing.',
    ].join(' '),
    body: notificationConfigInputSchema({ allowPrivateNetworks: options.allowPrivateNetworks }),
    success: { status: 200, description: 'The saved configuration, as GET answers it.', schema: notificationConfigSchema },
    errors: ['plan_limit_reached'],
    handler: ({ auth, body }) => putNotificationConfig(pool, deps.cipher, auth.userId, body, deps.now()),
  });
  api.route({
    method: 'post',
    path: '/notifications/test',
    tag: 'Notifications',
    summary: 'Send a test alert to one channel now.',
    description:
      'Sends one test alert (a post on #hashwatch) with the channel’s real format, template, signing secret or token, and answers ' +
      'with the target’s HTTP status, or 502 `delivery_failed` with the target’s answer. Not retried; a disabled channel is tested ' +
      `too; the channel is never changed. Limited to ${TESTS_PER_MINUTE} requests per minute per account, whatever their outcome.`,
    body: notificationTestSchema,
    success: { status: 200, description: 'The target accepted the alert.', schema: notificationTestResultSchema },
    errors: ['not_found', 'delivery_failed'],
    limit: testLimit,
    handler: ({ auth, body }) => sendTestAlert(deps, options, auth.userId, body),
  });
  api.route({
    method: 'get',
    path: '/notifications/deliveries',
    tag: 'Notifications',
    summary: 'Read the delivery log: one row per (channel, alerted feed item), newest first, with filters and cursor pagination.',
    description:
      'Every channel an item was routed to has a row, whatever became of it: `delivered` (with that channel’s `delivered_at` and `latency_ms`), ' +
      '`pending`, `failed`, or `skipped` (a late item, caught up after an outage, is never sent to Discord, Slack or Telegram). ' +
      '`feed_item` lists one item’s rows.',
    query: listDeliveriesQuerySchema,
    success: { status: 200, description: 'One page of the delivery log.', schema: deliveryListSchema },
    handler: ({ auth, query }) => listDeliveries(pool, cursors, auth.userId, query),
  });
  api.route({
    method: 'post',
    path: '/notifications/deliveries/{id}/retry',
    tag: 'Notifications',
    summary: 'Deliver a failed delivery again.',
    description:
      'Sets a `failed` delivery back to `pending`, due now, and queues it; `attempts` and `last_error` stay until the next attempt. ' +
      'A delivery that is not failed, or whose channel is disabled, answers 400. Takes no body.',
    params: deliveryIdParamsSchema,
    success: { status: 200, description: 'The delivery, pending again.', schema: deliverySchema },
    errors: ['not_found'],
    handler: ({ auth, params }) => retryDelivery(pool, auth.userId, params.id, deps.now()),
  });
}
