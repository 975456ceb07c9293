import type { ChannelMessage } from './alert';
import {
  FULL_FORM,
  isSendFailure,
  type DeliveryOutcome,
  type MessageForm,
  type RequestMeta,
  type SendFailure,
  type SendResult,
} from './channel-adapter';
import type { ChannelConfigOf, ChannelKind } from './channel-config';
import { adapterFor } from './channel-adapters';
import type { Sender } from './create-sender';

export interface DeliveryAttempt {
  outcome: DeliveryOutcome;
  /** The target's HTTP status on the last request, or null when none answered. */
  status: number | null;
  /** Why no answer came (a time-out, a network error, a refusal before connecting), when none did. */
  failure?: SendFailure['failure'];
}

function statusOf(result: SendResult): number | null {
  return isSendFailure(result) ? null : result.status;
}

/** The form to resend in after `outcome`, or null when the outcome is final. Each fallback is taken once. */
function fallbackForm(form: MessageForm, outcome: DeliveryOutcome): MessageForm | null {
  if (outcome.outcome === 'retry-plain' && form.markup) return { ...form, markup: false };
  if (outcome.outcome === 'retry-without-media' && form.media) return { ...form, media: false };
  return null;
}

/**
 * One delivery attempt: build, send, interpret. Where the platform refuses part of a message (Telegram: HTML it
 * cannot parse; Telegram and Slack: an image they cannot fetch), the same content is resent at once without that
 * part, each fallback once, within this attempt; a refusal of a part already left out is permanent. Retries over
 * time, pacing and digests are the caller's.
 */
export async function deliver<K extends ChannelKind>(
  message: ChannelMessage,
  channel: ChannelConfigOf<K> & { kind: K },
  meta: RequestMeta,
  sender: Sender,
): Promise<DeliveryAttempt> {
  const adapter = adapterFor<K>(channel.kind);
  let form = FULL_FORM;
  let request = adapter.buildRequest(message, channel, meta, form);
  for (;;) {
    const result = await sender.send(request);
    const outcome = adapter.interpret(result);
    const next = fallbackForm(form, outcome);
    const resend = next && adapter.buildRequest(message, channel, meta, next);
    // A fallback that changes nothing (a message without media asked to go without) is not sent again.
    if (next && resend && (resend.url !== request.url || resend.body !== request.body)) {
      form = next;
      request = resend;
      continue;
    }
    const final: DeliveryOutcome =
      outcome.outcome === 'retry-plain' || outcome.outcome === 'retry-without-media' ? { outcome: 'permanent', reason: outcome.reason } : outcome;
    return { outcome: final, status: statusOf(result), ...(isSendFailure(result) ? { failure: result.failure } : {}) };
  }
}
