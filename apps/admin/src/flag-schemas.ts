import { z } from 'zod';
import { subscriptionStatusSchema } from '@hashwatch/accounts';
import { PLAN_IDS } from '@hashwatch/plans';
import { isoInstant } from '@hashwatch/iso-time';

// Messages complete "--<flag> ...", so the operator reads "--plan must be one of starter, pro, business".
const requiredOr = (message: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message);

export const emailFlag = z.email({ error: requiredOr('must be an email address') });

export const planFlag = z.enum(PLAN_IDS, { error: requiredOr(`must be one of ${PLAN_IDS.join(', ')}`) });

export const accountFlag = z.string({ error: requiredOr('must be an account id') }).min(1, 'must be an account id (usr_...)');

// What an operator sets; `pending` is only ever the state a checkout starts in.
const OPERATOR_STATUSES = subscriptionStatusSchema.exclude(['pending']).options;

export const subscriptionStatusFlag = z.enum(OPERATOR_STATUSES, {
  error: requiredOr(`must be one of ${OPERATOR_STATUSES.join(', ')}`),
});

/** A non-negative integer; each value's own bounds are the domain's (`planConfigPatchSchema`). */
export const countFlag = z.string().regex(/^\d+$/, 'must be a non-negative integer').transform(Number);

export const instantFlag = z.string().transform((text, context) => {
  const instant = isoInstant(text);
  if (!instant) {
    context.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-12-01T00:00:00Z' });
    return z.NEVER;
  }
  return instant;
});
