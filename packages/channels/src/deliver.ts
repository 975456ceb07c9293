import type { ChannelMessage } from './alert';
import { isSendFailure, type ChannelConfigOf, type ChannelKind, type DeliveryOutcome, type RequestMeta, type SendResult } from './channel-adapter';
import { adapterFor } from './channel-adapters';
import type { Sender } from './create-sender';

export interface DeliveryAttempt {
  outcome: DeliveryOutcome;
  /** The target's HTTP status on the last request, or null when none answered. */
  status: number | null;
}

function statusOf(result: SendResult): number | null {
  return isSendFailure(result) ? null : result.status;
}

/**
 * One delivery attempt: build, send, interpret. When Telegram cannot parse the formatted text, the same
 * content is resent once as plain text, within this attempt; a second parse failure is permanent.
 * Retries over time, pacing and digests are the caller's.
 */
export async function deliver<K extends ChannelKind>(
  message: ChannelMessage,
  channel: ChannelConfigOf<K> & { kind: K },
  meta: RequestMeta,
  sender: Sender,
): Promise<DeliveryAttempt> {
  const adapter = adapterFor<K>(channel.kind);
  const result = await sender.send(adapter.buildRequest(message, channel, meta));
  const outcome = adapter.interpret(result);
  if (outcome.outcome !== 'retry-plain') return { outcome, status: statusOf(result) };
  if (!adapter.buildPlainRequest) return { outcome: { outcome: 'permanent', reason: outcome.reason }, status: statusOf(result) };

  const plainResult = await sender.send(adapter.buildPlainRequest(message, channel, meta));
  const plainOutcome = adapter.interpret(plainResult);
  return {
    outcome: plainOutcome.outcome === 'retry-plain' ? { outcome: 'permanent', reason: plainOutcome.reason } : plainOutcome,
    status: statusOf(plainResult),
  };
}
