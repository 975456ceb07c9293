import { z } from 'zod';
import { configSchema, envFlag } from '@hashwatch/config';
import { COMPLIANCE_EVERY_MS, SWEEP_EVERY_MS } from './maintenance/maintenance-worker';
import { DEFAULT_SOURCE_FAILING_CYCLES } from './notices/source-notices';
import { DEFAULT_SEARCH_BUDGET } from './sources/fair-shares';
import { DEFAULT_STREAM_TIMING } from './stream/coverage';

/** The scanner's environment: the shared variables with X_BEARER_TOKEN required, and its own. */
export const scannerConfig = configSchema.extend({
  X_BEARER_TOKEN: z.string({ error: 'is required: the app-only bearer token for X API v2' }).min(1).describe("The app bearer token for X API v2."),
  RETENTION_SWEEP_SECONDS: z
    .coerce.number()
    .int()
    .min(1)
    .max(86_400)
    .default(SWEEP_EVERY_MS / 1000)
    .describe("Seconds between runs of the retention sweep (one schedule for all replicas: give them all the same value)."),
  // X's batch compliance (docs/decisions/x-posts.md): how often a step runs; 0 turns it off (an X plan without the
  // compliance endpoints).
  X_COMPLIANCE_SECONDS: z
    .coerce.number()
    .int()
    .min(0)
    .max(86_400)
    .default(COMPLIANCE_EVERY_MS / 1000)
    .describe("Seconds between steps of X's batch compliance (stored posts sent to X in jobs of up to 100,000 ids, each post again a day after its last check; what X asks to remove is erased like a deletion); `0` turns it off, for an X plan without the compliance endpoints."),
  // Recent searches per 15 minutes the scans plan to spend, shared between accounts by plan weight
  // (docs/decisions/fair-shares.md); 0 turns the sharing off.
  SCANNER_SEARCH_BUDGET: z
    .coerce.number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(DEFAULT_SEARCH_BUDGET.requests)
    .describe("Recent searches per 15 minutes the scans plan to spend (X allows 450; the engagement poller's reply samples take up to 150). When the sources of all accounts ask for more, each account asking for more than its plan-weighted share (starter 1, pro 2, business 4) scans at a power-of-two multiple of its plan's interval, so the others keep theirs; `0` turns the sharing off."),
  SOURCE_FAILING_CYCLES: z
    .coerce.number()
    .int()
    .min(1)
    .max(1_000)
    .default(DEFAULT_SOURCE_FAILING_CYCLES)
    .describe("Failed scans of a source in a row (X rate limits aside) that open a `source_failing` notice for each account tracking it; the first successful scan resolves it."),
  // The filtered stream (docs/decisions/filtered-stream.md): off by default, since X sells it to plans that
  // include it; pay-per-use allows 1,000 rules of 1,024 characters, Enterprise more.
  X_STREAM: envFlag
    .default(false)
    .describe("`true` feeds the scanner from X's filtered stream (one connection, held by one replica; rules kept in line with the sources; every disconnection back-filled by search); the sources it covers spend no search budget. Needs an X plan with the filtered stream (docs/OPERATIONS.md, The filtered stream)."),
  X_STREAM_MAX_RULES: z
    .coerce.number()
    .int()
    .min(1)
    .max(100_000)
    .default(1_000)
    .describe("The filtered-stream rules your X plan allows (pay-per-use 1,000, Enterprise 25,000); sources beyond them stay searched, fastest cadence first on the stream."),
  X_STREAM_RULE_MAX_LENGTH: z
    .coerce.number()
    .int()
    .min(64)
    .max(4_096)
    .default(1_024)
    .describe("Characters per filtered-stream rule your X plan allows (pay-per-use 1,024, Enterprise 2,048)."),
  // How far around a disconnection the back-fill reaches, and how old a coverage means the stream is down.
  X_STREAM_MARGIN_SECONDS: z
    .coerce.number()
    .int()
    .min(1)
    .max(600)
    .default(DEFAULT_STREAM_TIMING.marginSeconds)
    .describe("How far around a disconnection of the stream the back-fill searches."),
  X_STREAM_STALE_SECONDS: z
    .coerce.number()
    .int()
    .min(1)
    .max(3_600)
    .default(DEFAULT_STREAM_TIMING.staleSeconds)
    .describe("How old the stream's recorded coverage may get before every replica searches its sources again."),
});
