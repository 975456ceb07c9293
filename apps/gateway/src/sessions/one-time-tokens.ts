import type pg from 'pg';
import { hashToken, randomToken } from '@hashwatch/secrets';

/** The tables of tokens that work once and expire: a sign-in's 2FA step (`hwl_`) and a password-reset link (`hwr_`). */
const KINDS = {
  login_challenges: 'hwl',
  password_resets: 'hwr',
} as const;

export type OneTimeTokenTable = keyof typeof KINDS;

/**
 * Issues a token of `table` for the account, valid `ttlMs` from `now`: 256 random bits, of which only the SHA-256
 * is stored. The account's expired tokens of that table go in the same statement, so the table holds live tokens
 * and few others.
 */
export async function issueOneTimeToken(pool: pg.Pool, table: OneTimeTokenTable, userId: string, now: Date, ttlMs: number): Promise<string> {
  const token = `${KINDS[table]}_${randomToken(32)}`;
  await pool.query(
    `WITH spent AS (DELETE FROM ${table} WHERE user_id = $2 AND expires_at <= $3)
     INSERT INTO ${table} (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
    [hashToken(token), userId, now, new Date(now.getTime() + ttlMs)],
  );
  return token;
}

/** Ends every live sign-in step and reset link of the account (a password that changed makes them all stale). */
export async function revokeOneTimeTokens(client: pg.Pool | pg.PoolClient, userId: string): Promise<void> {
  for (const table of Object.keys(KINDS) as OneTimeTokenTable[]) await client.query(`DELETE FROM ${table} WHERE user_id = $1`, [userId]);
}
