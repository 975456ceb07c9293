import { takesDigests, type ChannelKind } from '@hashwatch/channels';
import { markSkipped, type ClaimedDelivery } from './delivery-store';
import type { DrainDeps } from './drain-contract';

const LATE_REASON = 'not sent: a late alert (catch-up after an outage); chat platforms get no catch-up alerts';
const DELETED_REASON = 'not sent: the post was deleted on X before its alert went out';

/**
 * Claimed deliveries that are never sent, recorded `skipped` with the reason: an alert about a post deleted on X
 * since it was detected (nothing of it may be shown), on any channel; and a late alert claimed for a chat channel
 * (routed to a json channel whose format has since become a chat platform's; routing skips them for chat channels
 * at once). Answers the ids skipped; the caller gives the rest of its claim back and claims again.
 */
export async function skipUnsendable(deps: DrainDeps, batch: readonly ClaimedDelivery[], claimToken: string, kind: ChannelKind): Promise<Set<string>> {
  const deleted = batch.filter((delivery) => delivery.deleted).map((delivery) => delivery.id);
  const late = takesDigests(kind) ? batch.filter((delivery) => delivery.late && !delivery.deleted).map((delivery) => delivery.id) : [];
  if (deleted.length > 0) await markSkipped(deps.pool, deleted, claimToken, DELETED_REASON);
  if (late.length > 0) await markSkipped(deps.pool, late, claimToken, LATE_REASON);
  if (deleted.length + late.length > 0) deps.metrics.skipped.inc(kind, deleted.length + late.length);
  return new Set([...deleted, ...late]);
}
