import { routeAlertsJobId } from './job-id';
import { parseJobPayload } from './job-payload';
import { ROUTE_ALERTS_MAX_ITEMS, type JobPayload, type ParsedJobPayload } from './queue-catalog';

/** One feed item to route, as a route-alerts job carries it. */
export type RouteAlertItem = ParsedJobPayload<'alert-routing', 'route-alerts'>['items'][number];

/** A route-alerts job, shaped as an outbox entry (queue, name, id, payload). */
export interface RouteAlertsJob {
  queue: 'alert-routing';
  name: 'route-alerts';
  jobId: string;
  payload: JobPayload<'alert-routing', 'route-alerts'>;
}

/**
 * The route-alerts jobs that carry `items`: consecutive chunks of at most {@link ROUTE_ALERTS_MAX_ITEMS}, in
 * order, each under the id its items give it. The same items always give the same jobs, so whichever relay
 * adds them, and however often, BullMQ holds each job once. No items, no jobs.
 */
export function routeAlertsJobs(items: readonly RouteAlertItem[], maxItems: number = ROUTE_ALERTS_MAX_ITEMS): RouteAlertsJob[] {
  if (!Number.isInteger(maxItems) || maxItems < 1 || maxItems > ROUTE_ALERTS_MAX_ITEMS) {
    throw new RangeError(`maxItems must be an integer from 1 to ${ROUTE_ALERTS_MAX_ITEMS}`);
  }
  const jobs: RouteAlertsJob[] = [];
  for (let start = 0; start < items.length; start += maxItems) {
    const chunk = items.slice(start, start + maxItems).map(({ feedItemId, userId }) => ({ feedItemId, userId }));
    jobs.push({ queue: 'alert-routing', name: 'route-alerts', jobId: routeAlertsJobId(chunk), payload: { items: chunk } });
  }
  return jobs;
}

/** The feed items an alert-routing job carries, in order; none for data that is not a route-alerts job's. */
export function routeAlertItems(job: { name: string; data: unknown }): RouteAlertItem[] {
  if (job.name !== 'route-alerts') return [];
  try {
    return (parseJobPayload('alert-routing', 'route-alerts', job.data).data as ParsedJobPayload<'alert-routing', 'route-alerts'>).items;
  } catch {
    return [];
  }
}
