-- A json webhook's own ceiling on messages per second (CONTRACT 9 `max_per_second`), for receivers that want one.
-- NULL: none; the notifier sends as fast as the receiver's answers allow (its adaptive window, docs/decisions/
-- notifier-delivery.md). Only json webhooks may set it: chat platforms keep their published limits.
ALTER TABLE "notification_channels" ADD COLUMN "max_per_second" INTEGER;
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_max_per_second_check"
  CHECK ("max_per_second" IS NULL OR ("max_per_second" >= 1 AND "kind" = 'webhook'));
