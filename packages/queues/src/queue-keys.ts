import type { QueueName } from './queue-catalog';

/**
 * The BullMQ prefix of one catalog queue: `<QUEUE_PREFIX>:{<queue>}`. BullMQ names every key of a queue
 * `<prefix>:<queue>:<part>` and its scripts touch many of them at once, so on a Redis Cluster they must share
 * one hash slot: the hash tag `{<queue>}` puts every key of a queue in the slot of its name, and the queues of
 * the catalog, having different names, in different slots spread over the masters. The same layout is used on
 * one server, so Bull Board, metrics and operators see the same keys everywhere. The queue keeps its catalog
 * name (`source-scans`, …), which is what code, logs, metrics and job ids use.
 */
export function queueKeyPrefix(prefix: string, queueName: QueueName): string {
  return `${prefix}:{${queueName}}`;
}

/** One key of a queue, e.g. `queueKey('hw', 'alert-routing', 'wait')` is `hw:{alert-routing}:alert-routing:wait`. */
export function queueKey(prefix: string, queueName: QueueName, part: string): string {
  return `${queueKeyPrefix(prefix, queueName)}:${queueName}:${part}`;
}
