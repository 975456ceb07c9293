import { useTestEnvironment } from '@hashwatch/testing';
import { createCipher, generateSecretsKey } from './cipher';
import { resealSecrets, SecretsKeyMismatchError, verifySecretsKey, type SqlQuery } from './secrets-key-check';

describe('verifySecretsKey', () => {
  const env = useTestEnvironment();
  const query: SqlQuery = async (sql, values) => (await env.database.db.pool.query(sql, values)).rows;

  beforeEach(async () => {
    await env.database.db.pool.query('TRUNCATE secrets_key_checks, notification_channels, users CASCADE');
  });

  async function insertUser(id: string, totpSecretEnc: string | null): Promise<void> {
    await env.database.db.pool.query(
      `INSERT INTO users (id, email, plan_id, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit,
                          scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute, subscription_status,
                          current_period_start, current_period_end, totp_secret_enc)
       VALUES ($1, $1 || '@example.com', 'pro', 1, 1, 1, 1, 1, 60, 300, 60, 'active', now(), now() + interval '30 days', $2)`,
      [id, totpSecretEnc],
    );
  }

  it('records a check value on an empty database, then verifies it with the same key', async () => {
    const key = generateSecretsKey();
    await expect(verifySecretsKey(query, createCipher(key))).resolves.toBe('recorded');
    await expect(verifySecretsKey(query, createCipher(key))).resolves.toBe('verified');
    const { rows } = await env.database.db.pool.query<{ sealed: string }>('SELECT sealed FROM secrets_key_checks');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sealed).toMatch(/^v1\./);
  });

  it('refuses another key with one line naming SECRETS_KEY', async () => {
    await verifySecretsKey(query, createCipher(generateSecretsKey()));
    const error = await verifySecretsKey(query, createCipher(generateSecretsKey())).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SecretsKeyMismatchError);
    expect((error as Error).message).toMatch(/^SECRETS_KEY .*does not open the key check value/);
    expect((error as Error).message).not.toContain('\n');
  });

  it('accepts a check value that only SECRETS_KEY_PREVIOUS opens', async () => {
    const previous = generateSecretsKey();
    await verifySecretsKey(query, createCipher(previous));
    await expect(verifySecretsKey(query, createCipher(generateSecretsKey(), previous))).resolves.toBe('verified');
  });

  it('on a database with secrets but no check value, verifies a stored secret before recording one', async () => {
    const key = generateSecretsKey();
    await insertUser('usr_upgrade', createCipher(key).encrypt('JBSWY3DPEHPK3PXP'));
    await expect(verifySecretsKey(query, createCipher(generateSecretsKey()))).rejects.toThrow(/does not open the secrets already in the database \(users\.totp_secret_enc\)/);
    expect((await env.database.db.pool.query('SELECT 1 FROM secrets_key_checks')).rowCount).toBe(0);
    await expect(verifySecretsKey(query, createCipher(key))).resolves.toBe('recorded');
  });

  it('lets exactly one of several apps starting at once record the check value, and refuses the others’ other key', async () => {
    const key = generateSecretsKey();
    const results = await Promise.allSettled([
      ...Array.from({ length: 4 }, () => verifySecretsKey(query, createCipher(key))),
      verifySecretsKey(query, createCipher(generateSecretsKey())),
    ]);
    const recorded = results.filter((result) => result.status === 'fulfilled' && result.value === 'recorded');
    expect(recorded).toHaveLength(1);
    const refused = results.filter((result) => result.status === 'rejected');
    // The odd key out is refused, unless it won the race, in which case every other start is refused.
    expect([1, 4]).toContain(refused.length);
  });
});

describe('resealSecrets', () => {
  const env = useTestEnvironment();
  const query: SqlQuery = async (sql, values) => (await env.database.db.pool.query(sql, values)).rows;

  it('re-seals secrets sealed with either key under the current one, and leaves everything as it was when one opens with neither', async () => {
    const previous = generateSecretsKey();
    const current = generateSecretsKey();
    await verifySecretsKey(query, createCipher(previous));
    await env.database.db.pool.query(
      `INSERT INTO users (id, email, plan_id, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit,
                          scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute, subscription_status,
                          current_period_start, current_period_end, totp_secret_enc, totp_pending_secret_enc)
       VALUES ('usr_a', 'a@example.com', 'pro', 1, 1, 1, 1, 1, 60, 300, 60, 'active', now(), now() + interval '30 days', $1, $2)`,
      [createCipher(previous).encrypt('TOTP-A'), createCipher(current).encrypt('PENDING-A')],
    );
    const stranger = createCipher(generateSecretsKey()).encrypt('lost');
    await env.database.db.pool.query(
      `INSERT INTO notification_channels (id, user_id, kind, position, url, format, bot_name, signing_secret_enc)
       VALUES ('wh_lost', 'usr_a', 'webhook', 0, 'https://example.com/hook', 'json', 'Hashwatch', $1)`,
      [stranger],
    );
    const before = await env.database.db.pool.query('SELECT totp_secret_enc, totp_pending_secret_enc FROM users');
    const keyring = createCipher(current, previous);
    await expect(resealSecrets(query, keyring)).rejects.toThrow(/notification_channels\.signing_secret_enc of row wh_lost; nothing was re-sealed/);
    // Nothing written before the refusal: the caller's transaction has nothing to undo here.
    expect((await env.database.db.pool.query('SELECT totp_secret_enc, totp_pending_secret_enc FROM users')).rows).toEqual(before.rows);

    await env.database.db.pool.query('DELETE FROM notification_channels');
    await expect(resealSecrets(query, keyring)).resolves.toBe(2);
    const alone = createCipher(current);
    const { rows } = await env.database.db.pool.query<{ totp_secret_enc: string; totp_pending_secret_enc: string }>('SELECT totp_secret_enc, totp_pending_secret_enc FROM users');
    expect([alone.decrypt(rows[0]!.totp_secret_enc), alone.decrypt(rows[0]!.totp_pending_secret_enc)]).toEqual(['TOTP-A', 'PENDING-A']);
    await expect(verifySecretsKey(query, alone)).resolves.toBe('verified');
    // Again: the same end state.
    await expect(resealSecrets(query, keyring)).resolves.toBe(2);
  });
});
