import { createAccount, eraseAccount } from '@hashwatch/accounts';
import { rowsHolding, useTestEnvironment } from '@hashwatch/testing';
import { sweepRetention } from './retention-sweep';

const NOW = new Date('2026-11-27T12:00:00Z');
const DAY_MS = 86_400_000;


describe('sweep of unpaid checkouts', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  const tablesHolding = async (accountId: string) => [...new Set((await rowsHolding(pool(), [accountId])).map((found) => found.table))];

  /** A checkout account as sign-up leaves it, `ageDays` old, with a session, a password reset and its checkout. */
  async function checkoutAccount(email: string, ageDays: number, status: 'pending' | 'active' = 'pending'): Promise<string> {
    const { accountId } = await createAccount(env.database.db.prisma, { email, planId: 'pro' });
    const created = new Date(NOW.getTime() - ageDays * DAY_MS);
    await pool().query(`UPDATE users SET subscription_status = $2::subscription_status, created_at = $3, updated_at = $3 WHERE id = $1`, [accountId, status, created]);
    await pool().query(`INSERT INTO checkouts (id, user_id, plan_id, provider, url, created_at) VALUES ($1, $2, 'pro', 'demo', 'https://pay.example.com/' || $1, $3)`, [`chk_${accountId.slice(4)}`, accountId, created]);
    await pool().query(`INSERT INTO sessions (id, user_id, token_hash, expires_at) VALUES ($1, $2, sha256(convert_to($1, 'UTF8')), $3)`, [`ses_${accountId.slice(4)}`, accountId, NOW]);
    await pool().query(`INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES (sha256(convert_to($1, 'UTF8')), $1, $2)`, [accountId, NOW]);
    return accountId;
  }

  it('erases a checkout left unpaid for 7 days completely, and keeps younger ones and paid accounts', async () => {
    const stale = await checkoutAccount('stale@example.com', 8);
    const young = await checkoutAccount('young@example.com', 6);
    const paid = await checkoutAccount('paid@example.com', 30, 'active');
    // Usage rows of the stale account, per-source upstream cost included, go with it.
    await pool().query(
      `WITH p AS (INSERT INTO usage_periods (user_id, period_start, period_end) SELECT id, current_period_start, current_period_end FROM users WHERE id = $1)
       INSERT INTO upstream_usage_by_source (user_id, period_start, source, reads, requests) SELECT id, current_period_start, '#stale', 1, 1 FROM users WHERE id = $1`,
      [stale],
    );
    expect(await tablesHolding(stale)).toEqual(expect.arrayContaining(['upstream_usage_by_source', 'usage_periods']));

    const summary = await sweepRetention(pool(), { now: () => NOW, limits: { pauseMs: 0 } });

    expect(summary.pendingAccounts).toBe(1);
    expect(await rowsHolding(pool(), [stale, stale.slice(4), 'stale@example.com'])).toEqual([]);
    const ownRows = ['api_keys', 'checkouts', 'password_resets', 'sessions', 'users'];
    expect(await tablesHolding(young)).toEqual(ownRows);
    expect(await tablesHolding(paid)).toEqual(ownRows);
    expect((await sweepRetention(pool(), { now: () => NOW, limits: { pauseMs: 0 } })).pendingAccounts).toBe(0);
  });

  it('keeps a pending account checked out again lately: its new checkout may still be paid', async () => {
    const returning = await checkoutAccount('returning@example.com', 8);
    // A new checkout of the pending email reuses the account (the gateway's checkout sets updated_at) with a new row.
    const lately = new Date(NOW.getTime() - DAY_MS);
    await pool().query(`UPDATE users SET updated_at = $2 WHERE id = $1`, [returning, lately]);
    await pool().query(`INSERT INTO checkouts (id, user_id, plan_id, provider, url, created_at) VALUES ($1, $2, 'pro', 'demo', 'https://pay.example.com/again', $3)`, [`chk_again${returning.slice(4)}`, returning, lately]);
    expect((await sweepRetention(pool(), { now: () => NOW, limits: { pauseMs: 0 } })).pendingAccounts).toBe(0);
    expect(await tablesHolding(returning)).toContain('users');
    // Either mark alone keeps it: the erasure re-checks both on the row it would delete.
    await pool().query(`UPDATE users SET updated_at = created_at WHERE id = $1`, [returning]);
    expect(await eraseAccount(pool(), returning, { pendingBefore: new Date(NOW.getTime() - 7 * DAY_MS) })).toBeNull();
    await pool().query(`DELETE FROM checkouts WHERE user_id = $1 AND created_at = $2`, [returning, lately]);
    await pool().query(`UPDATE users SET updated_at = $2 WHERE id = $1`, [returning, lately]);
    expect(await eraseAccount(pool(), returning, { pendingBefore: new Date(NOW.getTime() - 7 * DAY_MS) })).toBeNull();
  });

  it('keeps an account whose checkout was paid after the sweep picked it', async () => {
    const paying = await checkoutAccount('paying@example.com', 10);
    // The sweep read it as pending; the payment commits before the erasure runs.
    await pool().query(`UPDATE users SET subscription_status = 'active' WHERE id = $1`, [paying]);
    expect(await eraseAccount(pool(), paying, { pendingBefore: new Date(NOW.getTime() - 7 * DAY_MS) })).toBeNull();
    expect(await tablesHolding(paying)).toContain('users');
  });
});
