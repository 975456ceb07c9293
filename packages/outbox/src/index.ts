export { writeOutbox, writeOutboxBatch, writeNumberedOutbox, relayOutbox, relayOutboxUntilEmpty, relayWritten } from './outbox';
export type { OutboxEntry, WrittenOutbox, RelayOptions, AlongsideStatement } from './outbox';
