export { writeOutbox, relayOutbox } from './outbox';
export type { OutboxEntry } from './outbox';
