export { isDigest, isNotice, MAX_DIGEST_ALERTS, takesDigests } from './alert';
export type {
  AlertDigest,
  AlertMedia,
  AlertPost,
  AlertQuoted,
  AlertType,
  AlertUrl,
  ChannelMessage,
  EngagementKind,
  NoticeBody,
  NoticeKindName,
  SystemNotice,
} from './alert';
export { NOTICE_OPEN_TITLE, NOTICE_RESOLVED_TITLE } from './notice-content';
export { ChannelConfigError, FULL_FORM, isSendFailure, UnsupportedMessageError } from './channel-adapter';
export type {
  ChannelConfig,
  ChannelConfigOf,
  ChannelKind,
  DiscordChannelConfig,
  JsonChannelConfig,
  SlackChannelConfig,
  TelegramChannelConfig,
} from './channel-config';
export type {
  ChannelAdapter,
  DeliveryOutcome,
  HttpResponse,
  MessageForm,
  OutgoingRequest,
  RequestMeta,
  SendFailure,
  SendResult,
} from './channel-adapter';
export { adapterFor, channelAdapters } from './channel-adapters';
export { createSender, DEFAULT_MAX_RESPONSE_BYTES } from './create-sender';
export type { Sender, SenderOptions } from './create-sender';
export { deliver } from './deliver';
export type { DeliveryAttempt } from './deliver';
export { channelKindOf, noticesByDefault, resolveFormat } from './resolve-format';
export type { WebhookFormat } from './resolve-format';
export { renderTemplate } from './template';
export { MissingSecretError, unsealChannel, UnreadableSecretError } from './unseal-channel';
export type { ChannelSecret, NotificationChannelRow, SealedChannel, UnsealOptions } from './unseal-channel';
export { buildTestAlert } from './test-alert';
export { discordChannel } from './discord/discord.channel';
export { slackChannel } from './slack/slack.channel';
export { jsonChannel } from './json/json.channel';
export type { JsonNoticePayload, JsonPayload, JsonPost } from './json/json-payload';
export {
  DEFAULT_TOLERANCE_SECONDS,
  generateSigningSecret,
  signWebhook,
  SigningSecretError,
  verifyWebhookSignature,
} from './json/webhook-signature';
export type { WebhookVerification } from './json/webhook-signature';
export { DEFAULT_TELEGRAM_BASE_URL, telegramChannel } from './telegram/telegram.channel';
