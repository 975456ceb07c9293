import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { hashToken } from '@hashwatch/secrets';

/** Codes issued when 2FA turns on. */
export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
// 16 characters of 32: 80 random bits.
const CODE_LENGTH = 16;

/** One new code, `k7qz-tm2x-wap4-dner`. */
function newRecoveryCode(): string {
  const bytes = randomBytes(CODE_LENGTH);
  // 256 is a multiple of 32, so `byte % 32` is uniform.
  const chars = Array.from(bytes, (byte) => ALPHABET[byte % ALPHABET.length]).join('');
  return chars.match(/.{4}/g)!.join('-');
}

/** The form a code is stored under: lower case, no hyphens or spaces, so `K7QZ TM2X…` finds `k7qz-tm2x-…`. */
function normalized(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/**
 * Replaces the account's recovery codes with RECOVERY_CODE_COUNT new ones, inside the caller's transaction (the one
 * that turns 2FA on), and answers them: the only time they exist outside their SHA-256.
 */
export async function issueRecoveryCodes(client: pg.PoolClient, userId: string, now: Date): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await client.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
  await client.query('INSERT INTO recovery_codes (user_id, code_hash, created_at) SELECT $1, unnest($2::bytea[]), $3', [
    userId,
    codes.map((code) => Buffer.from(hashToken(normalized(code)))),
    now,
  ]);
  return codes;
}

/**
 * Spends one code of the account: true when it was unused (its row is gone now), false otherwise. Run under the
 * account's row lock, so two requests never both spend one code; the delete alone would also settle it.
 */
export async function spendRecoveryCode(client: pg.PoolClient, userId: string, code: string): Promise<{ spent: boolean; remaining: number }> {
  const { rows } = await client.query<{ spent: boolean; remaining: number }>(
    `WITH spent AS (DELETE FROM recovery_codes WHERE user_id = $1 AND code_hash = $2 RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM spent) AS spent,
            (SELECT count(*)::int FROM recovery_codes WHERE user_id = $1) - (SELECT count(*)::int FROM spent) AS remaining`,
    [userId, Buffer.from(hashToken(normalized(code)))],
  );
  return rows[0] ?? { spent: false, remaining: 0 };
}

/** Ends every recovery code of the account (2FA turned off). */
export async function revokeRecoveryCodes(client: pg.PoolClient | pg.Pool, userId: string): Promise<void> {
  await client.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
}
