import type { ChannelKind } from '@hashwatch/channels';
import { markSkipped, type ClaimedDelivery } from './delivery-store';
import type { DrainDeps } from './drain-channel.job';

const LATE_REASON = 'not sent: a late alert (catch-up after an outage); chat platforms get no catch-up alerts';

/**
 * Late deliveries claimed for a chat channel are skipped, never sent: routed to a json channel whose format has since
 * become a chat platform's (routing skips them for chat channels at once). Answers how many were skipped; the caller
 * gives the rest of its claim back and claims again.
 */
export async function skipLateAlerts(deps: DrainDeps, batch: readonly ClaimedDelivery[], claimToken: string, kind: ChannelKind): Promise<number> {
  const late = batch.filter((delivery) => delivery.late).map((delivery) => delivery.id);
  if (late.length === 0) return 0;
  await markSkipped(deps.pool, late, claimToken, LATE_REASON);
  deps.metrics.skipped.inc(kind, late.length);
  return late.length;
}
