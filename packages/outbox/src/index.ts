export { writeOutbox, writeOutboxBatch, writeNumberedOutbox, numberedOutboxStatement, relayOutbox, relayOutboxUntilEmpty, relayWritten } from './outbox';
export type { OutboxEntry, WrittenOutbox, RelayOptions, AlongsideStatement } from './outbox';
export { eraseFromOutbox } from './erase-from-outbox';
