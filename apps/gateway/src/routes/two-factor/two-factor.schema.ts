import { z } from 'zod';

/** Header that carries the TOTP code on sensitive actions (`POST /apikey/regenerate`, `DELETE /me`) while 2FA is on. */
export const TOTP_HEADER = 'X-TOTP-Code';
export const TOTP_CODE_PATTERN = /^\d{6}$/;

export const totpCodeSchema = z
  .string()
  .regex(TOTP_CODE_PATTERN, 'must be exactly 6 digits')
  .meta({ example: '123456', description: 'The current 6-digit code from the authenticator app.' });

/** Documents X-TOTP-Code on the routes that need it while 2FA is on. */
export const totpHeaderSchema = z.object({
  [TOTP_HEADER]: totpCodeSchema.optional().meta({
    description: 'Required while two-factor authentication is on: the current 6-digit code. A code is accepted once.',
  }),
});

export const enableTwoFactorSchema = z
  .strictObject({
    code: totpCodeSchema.optional().meta({ description: 'Omit to start (or restart) setup; send it to confirm the secret issued last.' }),
  })
  .meta({ id: 'EnableTwoFactor' });

export const disableTwoFactorSchema = z.strictObject({ code: totpCodeSchema }).meta({ id: 'DisableTwoFactor' });

export const twoFactorSetupSchema = z
  .object({
    secret: z.string().meta({ example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', description: 'Base32 secret, for manual entry in the app.' }),
    otpauth_url: z.string().meta({ example: 'otpauth://totp/ann%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Hashwatch' }),
    qr_code: z.string().meta({ example: 'data:image/png;base64,iVBORw0KGgo...', description: 'The otpauth URL as a PNG data URL.' }),
    enabled: z.literal(false),
  })
  .meta({ id: 'TwoFactorSetup', description: 'A pending secret: 2FA turns on once a code from it is confirmed.' });

export const twoFactorStateSchema = z.object({ enabled: z.boolean() }).meta({ id: 'TwoFactorState' });

export const enableTwoFactorResultSchema = z.union([twoFactorSetupSchema, z.object({ enabled: z.literal(true) })]);

export type TwoFactorSetup = z.infer<typeof twoFactorSetupSchema>;
