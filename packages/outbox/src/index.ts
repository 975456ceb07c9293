export { writeOutbox, writeOutboxBatch, relayOutbox, relayWritten, INSERT_OUTBOX_BATCH, outboxBatchValues } from './outbox';
export type { OutboxEntry, WrittenOutbox, RelayOptions } from './outbox';
