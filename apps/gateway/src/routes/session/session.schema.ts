import { z } from 'zod';
import { secondFactorSchema } from '../two-factor/two-factor.schema';

export const emailSchema = z.email({ error: 'must be an email address' }).max(254).meta({ example: 'ann@example.com' });

/** A password as an account sets it: 12 to 200 characters. */
export const newPasswordSchema = z
  .string()
  .min(12, 'must be at least 12 characters')
  .max(200, 'must be at most 200 characters')
  .meta({ description: '12 to 200 characters. Stored only as a scrypt hash.', example: 'correct horse battery staple' });

export const signInSchema = z
  .strictObject({ email: emailSchema, password: z.string().min(1, 'is required').max(200, 'must be at most 200 characters') })
  .meta({ id: 'SignIn' });

export const signInResultSchema = z
  .union([
    z.object({ two_factor_required: z.literal(false) }),
    z.object({
      two_factor_required: z.literal(true),
      login_token: z.string().meta({ description: 'Send it with the code to `POST /v1/2fa/login` within 5 minutes; it works once.' }),
    }),
  ])
  .meta({ id: 'SignInResult', description: 'Signed in (the `hw_session` cookie is set), or the 2FA step comes next (no cookie yet).' });

export const twoFactorLoginSchema = z
  .strictObject({ login_token: z.string().min(1, 'is required').max(200), code: secondFactorSchema })
  .meta({ id: 'TwoFactorLogin' });

export const signedInSchema = z.object({ two_factor_required: z.literal(false) }).meta({ id: 'SignedIn' });

export const sessionSchema = z
  .object({
    email: z.string(),
    account_id: z.string().meta({ example: 'usr_3kTMd9rXw1P0aVbQ' }),
    csrf_token: z.string().meta({ description: 'Send it as `X-CSRF-Token` on every POST, PUT, PATCH and DELETE made with this session.' }),
    expires_at: z.string().meta({ description: 'The earlier of the idle expiry (12 h after the last use) and the absolute one (7 days after sign-in).' }),
  })
  .meta({ id: 'Session' });

export const passwordResetRequestSchema = z.strictObject({ email: emailSchema }).meta({ id: 'PasswordResetRequest' });

export const passwordResetAcceptedSchema = z.object({ accepted: z.literal(true) }).meta({ id: 'PasswordResetAccepted' });

export const passwordResetConfirmSchema = z
  .strictObject({ token: z.string().min(1, 'is required').max(200), password: newPasswordSchema })
  .meta({ id: 'PasswordResetConfirm' });

export const passwordSetSchema = z.object({ password_changed: z.literal(true) }).meta({ id: 'PasswordChanged' });

export const passwordChangeSchema = z
  .strictObject({ current_password: z.string().min(1, 'is required').max(200), new_password: newPasswordSchema })
  .meta({ id: 'PasswordChange' });
