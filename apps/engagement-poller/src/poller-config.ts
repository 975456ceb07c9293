import { z } from 'zod';
import { configSchema } from '@hashwatch/config';

/** The engagement poller's environment: the shared variables with X_BEARER_TOKEN required. */
export const pollerConfig = configSchema.extend({
  X_BEARER_TOKEN: z.string({ error: 'is required: the app-only bearer token for X API v2' }).min(1).describe("The app bearer token for X API v2."),
});
