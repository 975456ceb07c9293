import { redact } from '@hashwatch/logger';
import { isSendFailure, type DeliveryOutcome, type HttpResponse, type SendResult } from './channel-adapter';

/** Reasons may end up in logs and in `POST /notifications/test` answers: strip anything credential-shaped. */
export function safeReason(text: string): string {
  return String(redact(text));
}

/** The start of a target's answer, on one line, for a failure reason. */
export function describeBody(body: string, max = 200): string {
  const line = body.replace(/\s+/g, ' ').trim();
  return safeReason(line.length > max ? `${line.slice(0, max)}…` : line);
}

/**
 * `Retry-After` in milliseconds: delay-seconds, or an HTTP date measured against the answer's own `Date`
 * header (so this stays a pure function of the response). Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Record<string, string>): number | undefined {
  const value = headers['retry-after']?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const at = Date.parse(value);
  const now = Date.parse(headers.date ?? '');
  if (Number.isNaN(at) || Number.isNaN(now)) return undefined;
  return Math.max(0, at - now);
}

/** Seconds from a platform's JSON body (Discord and Telegram send them) to whole milliseconds. */
export function secondsToMs(seconds: number): number {
  return Math.max(0, Math.ceil(seconds * 1000));
}

export function parseJsonBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

export function retry(reason: string, afterMs?: number): DeliveryOutcome {
  return afterMs === undefined
    ? { outcome: 'retry', reason: safeReason(reason) }
    : { outcome: 'retry', afterMs, reason: safeReason(reason) };
}

export function permanent(reason: string, disableChannel = false): DeliveryOutcome {
  return disableChannel
    ? { outcome: 'permanent', reason: safeReason(reason), disableChannel: true }
    : { outcome: 'permanent', reason: safeReason(reason) };
}

/**
 * Wraps a platform's response interpreter with the rules every adapter shares: a request refused by the
 * SSRF guard or scheme check is permanent, a network error or timeout is retried, and a redirect is a
 * permanent failure because the sender never follows one (Standard Webhooks: do not follow redirects;
 * following would also let a public host bounce us to a private one).
 */
export function withTransportRules(
  interpretResponse: (response: HttpResponse) => DeliveryOutcome,
): (result: SendResult) => DeliveryOutcome {
  return (result) => {
    if (isSendFailure(result)) {
      return result.failure === 'refused' ? permanent(result.reason) : retry(result.reason);
    }
    if (result.status >= 300 && result.status < 400) {
      return permanent(
        `the target answered ${result.status} (redirect); redirects are not followed, so set the channel to the final address`,
      );
    }
    return interpretResponse(result);
  };
}
