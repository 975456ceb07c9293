import { z } from 'zod';
import { PLAN_IDS } from '@hashwatch/plans';
import { emailSchema, newPasswordSchema } from '../session/session.schema';

export const checkoutSchema = z
  .strictObject({
    email: emailSchema,
    plan: z.enum(PLAN_IDS, { error: `must be one of ${PLAN_IDS.join(', ')}` }),
    password: newPasswordSchema,
  })
  .meta({ id: 'Checkout' });

export const checkoutStartedSchema = z
  .object({
    checkout_id: z.string().meta({ example: 'chk_Yv2kq9Lw0mXr3TzA' }),
    url: z.string().meta({ description: 'The absolute address where the person pays (Stripe) or waits for activation (manual).' }),
  })
  .meta({ id: 'CheckoutStarted' });
