import type { DeliveryCheck } from './delivery-check';

/**
 * Prints the scenario's one JSON line (for docs/BENCHMARKS.md): items, losses, duplicates and the time to
 * recover, from the fault's end to the last missing item's first arrival (0 when none was missing then).
 */
export function reportScenario(
  scenario: string,
  check: DeliveryCheck,
  faultEndMs: number,
  extra: Record<string, unknown> = {},
): { recovery_ms: number; resume_ms: number; late_after_fault: number } {
  const recovery_ms = check.lastFirstArrivalMs > faultEndMs ? check.lastFirstArrivalMs - faultEndMs : 0;
  const late = check.channels.flatMap((channel) => channel.arrivals.filter((at) => at > faultEndMs));
  // A big backlog takes a while to drain even at the receiver's pace: `late` and `resume_ms` (the first arrival
  // after the fault) tell a slow restart from a long queue.
  const resume_ms = late.length > 0 ? Math.min(...late) - faultEndMs : 0;
  const line = {
    e2e: scenario,
    items: check.posts,
    channels: check.channels.length,
    lost: check.channels.reduce((sum, channel) => sum + channel.missing.length, check.notStored.length),
    stored_twice: check.storedTwice.length,
    same_id_redeliveries: check.channels.reduce((sum, channel) => sum + channel.sameIdRedeliveries, 0),
    recovery_ms,
    resume_ms,
    late_after_fault: late.length,
    ...extra,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  return { recovery_ms, resume_ms, late_after_fault: late.length };
}
