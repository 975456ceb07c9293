import { z } from 'zod';

/** Header that carries the TOTP code on sensitive actions (`POST /apikey/regenerate`, `DELETE /me`) while 2FA is on. */
export const TOTP_HEADER = 'X-TOTP-Code';
export const TOTP_CODE_PATTERN = /^\d{6}$/;

export const totpCodeSchema = z
  .string()
  .regex(TOTP_CODE_PATTERN, 'must be exactly 6 digits')
  .meta({ example: '123456', description: 'The current 6-digit code from the authenticator app.' });

/**
 * A recovery code as shown at enrolment (`k7qz-tm2x-wap4-dner`: 16 characters of base32's lowercase alphabet, 80
 * random bits); read without regard to case or the hyphens.
 */
export const RECOVERY_CODE_PATTERN = /^[a-z2-7]{4}(-?[a-z2-7]{4}){3}$/i;

/** A second factor: the current 6-digit code, or one unused recovery code (spent by the request it completes). */
export const secondFactorSchema = z
  .string()
  .transform((value) => value.trim())
  .pipe(z.string().refine((value) => TOTP_CODE_PATTERN.test(value) || RECOVERY_CODE_PATTERN.test(value), 'must be the 6-digit code or a recovery code (abcd-efgh-ijkl-mnop)'))
  .meta({ example: '123456', description: 'The current 6-digit code from the authenticator app, or one unused recovery code (`abcd-efgh-ijkl-mnop`), which then is spent.' });

/** Documents X-TOTP-Code on the routes that need it while 2FA is on. */
export const totpHeaderSchema = z.object({
  [TOTP_HEADER]: z.string().optional().meta({
    example: '123456',
    description: 'Required while two-factor authentication is on: the current 6-digit code (accepted once), or one unused recovery code (then spent).',
  }),
});

/** On an account with a dashboard password, what enabling or disabling 2FA with an API key also needs. */
const reauthenticationPasswordSchema = z.string().min(1, 'is required').max(200).optional().meta({
  description:
    'The dashboard password. Required when the request is made with an API key (not a session) on an account that has a password: missing or wrong, 403 `invalid_credentials` and nothing changes.',
});

export const enableTwoFactorSchema = z
  .strictObject({
    code: totpCodeSchema.optional().meta({ description: 'Omit to start (or restart) setup; send it to confirm the secret issued last.' }),
    password: reauthenticationPasswordSchema,
  })
  .meta({ id: 'EnableTwoFactor' });

export const disableTwoFactorSchema = z.strictObject({ code: secondFactorSchema, password: reauthenticationPasswordSchema }).meta({ id: 'DisableTwoFactor' });

export const twoFactorSetupSchema = z
  .object({
    secret: z.string().meta({ example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', description: 'Base32 secret, for manual entry in the app.' }),
    otpauth_url: z.string().meta({ example: 'otpauth://totp/ann%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Hashwatch' }),
    qr_code: z.string().meta({ example: 'data:image/png;base64,iVBORw0KGgo...', description: 'The otpauth URL as a PNG data URL.' }),
    enabled: z.literal(false),
  })
  .meta({ id: 'TwoFactorSetup', description: 'A pending secret: 2FA turns on once a code from it is confirmed.' });

export const twoFactorStateSchema = z.object({ enabled: z.boolean() }).meta({ id: 'TwoFactorState' });

export const twoFactorEnabledSchema = z
  .object({
    enabled: z.literal(true),
    recovery_codes: z.array(z.string()).meta({
      example: ['k7qz-tm2x-wap4-dner', 'r6vb-s3hq-2mze-yw5c'],
      description: 'Shown this once: 10 one-time codes, each of which may stand in for an authentication code once (sign-in, X-TOTP-Code, disabling 2FA). Store them apart from the authenticator.',
    }),
  })
  .meta({ id: 'TwoFactorEnabled' });

export const enableTwoFactorResultSchema = z.union([twoFactorSetupSchema, twoFactorEnabledSchema]);

export type TwoFactorSetup = z.infer<typeof twoFactorSetupSchema>;
export type TwoFactorEnabled = z.infer<typeof twoFactorEnabledSchema>;
