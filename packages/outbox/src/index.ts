export { writeOutbox, writeOutboxBatch, writeNumberedOutbox, numberedOutboxStatement, relayOutbox, relayOutboxUntilEmpty, relayWritten } from './outbox';
export type { NumberedOutboxEntry, OutboxEntry, WrittenOutbox, RelayOptions, AlongsideStatement } from './outbox';
export { eraseFromOutbox } from './erase-from-outbox';
export { startOutboxRelay } from './relay-worker';
export type { OutboxRelayOptions } from './relay-worker';
