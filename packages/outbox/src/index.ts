export { writeOutbox, writeOutboxBatch, relayOutbox, relayWritten } from './outbox';
export type { OutboxEntry, WrittenOutbox, RelayOptions, AlongsideStatement } from './outbox';
