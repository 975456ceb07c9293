import type { Response } from 'express';
import { issueApiKey } from '@hashwatch/accounts';
import type { GatewayDeps } from '../../deps';
import { tightLimit, type TightLimit } from '../../middleware/tight-limit';
import { checkLimitWithHeaders, type TwoFactorGuard } from '../two-factor/two-factor.service';
import { mailSecurityChange } from '../../sessions/security-mail';

// POST /apikey/regenerate: 1 per 15 minutes per account, on top of the per-minute cap.
const REGENERATIONS = 1;
const REGENERATION_WINDOW_SECONDS = 15 * 60;

export function regenerationLimit(deps: GatewayDeps): TightLimit {
  return tightLimit(deps, 'apikey-regenerate', 'POST /apikey/regenerate', REGENERATIONS, REGENERATION_WINDOW_SECONDS);
}

/**
 * Only successful regenerations count against the limit: a request refused for a missing or wrong TOTP
 * code does not lock the account out of regenerating for 15 minutes.
 */
export async function regenerateApiKey(
  deps: GatewayDeps,
  limit: TightLimit,
  guard: TwoFactorGuard,
  userId: string,
  totpCode: string | undefined,
  res: Response,
): Promise<{ api_key: string }> {
  await checkLimitWithHeaders(limit, userId, res);
  await guard.requireCode(userId, totpCode, res);
  // Revokes every live key and issues the new one in one transaction; authentication reads the
  // database on every request, so the old key answers 401 on every replica from the commit on.
  const apiKey = await issueApiKey(deps.db.prisma, userId, deps.now());
  await limit.record(userId);
  mailSecurityChange(deps, userId, { kind: 'api_key_regenerated' });
  return { api_key: apiKey };
}
