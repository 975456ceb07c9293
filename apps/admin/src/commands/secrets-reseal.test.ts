import { createCipher, generateSecretsKey, verifySecretsKey, type Cipher } from '@hashwatch/secrets';
import { useTestEnvironment } from '@hashwatch/testing';
import { runCommand } from '../run-command';

describe('secrets:reseal', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  const query = async (sql: string, values: unknown[]) => (await pool().query(sql, values)).rows;
  const oldKey = generateSecretsKey();
  const newKey = generateSecretsKey();
  const run = (cipher: Cipher | undefined) => runCommand(['secrets:reseal'], { prisma: env.database.db.prisma, now: () => new Date(), cipher });

  async function sealedValues(): Promise<string[]> {
    const { rows } = await pool().query<{ signing_secret_enc: string | null; bot_token_enc: string | null }>(
      'SELECT signing_secret_enc, bot_token_enc FROM notification_channels ORDER BY id',
    );
    const check = await pool().query<{ sealed: string }>('SELECT sealed FROM secrets_key_checks');
    return [...rows.flatMap((row) => [row.signing_secret_enc, row.bot_token_enc]), ...check.rows.map((row) => row.sealed)].filter(
      (value): value is string => value !== null,
    );
  }

  beforeAll(async () => {
    const old = createCipher(oldKey);
    const created = await runCommand(['account:create', '--email', 'rotate-secrets@example.com', '--plan', 'pro'], {
      prisma: env.database.db.prisma,
      now: () => new Date(),
    });
    await pool().query(
      `INSERT INTO notification_channels (id, user_id, kind, url, format, signing_secret_enc)
       VALUES ('wh_reseal1', $1, 'webhook', 'https://example.com/hook', 'json', $2)`,
      [created.account_id, old.encrypt('whsec_c2VjcmV0LW9uZQ==')],
    );
    await pool().query(
      `INSERT INTO notification_channels (id, user_id, kind, bot_token_enc, token_hint, chat_id)
       VALUES ('wh_reseal2', $1, 'bot', $2, 'oken', '42')`,
      [created.account_id, old.encrypt('123456:bot-token')],
    );
    await verifySecretsKey(query, old);
  });

  it('answers invalid_request naming SECRETS_KEY when it is not set', async () => {
    await expect(run(undefined)).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^SECRETS_KEY is required/) });
  });

  it('changes nothing and answers invalid_request when no configured key opens the stored secrets', async () => {
    const before = await sealedValues();
    await expect(run(createCipher(newKey))).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^SECRETS_KEY \(nor SECRETS_KEY_PREVIOUS/) });
    expect(await sealedValues()).toEqual(before);
  });

  it('seals every secret and the key check value with SECRETS_KEY, so the new key alone opens them, as the apps verify at start-up', async () => {
    expect(await run(createCipher(newKey, oldKey))).toEqual({ resealed: 2 });

    const fresh = createCipher(newKey);
    const values = await sealedValues();
    expect(values).toHaveLength(3);
    expect(values.slice(0, 2).map((value) => fresh.decrypt(value))).toEqual(['whsec_c2VjcmV0LW9uZQ==', '123456:bot-token']);
    await expect(verifySecretsKey(query, fresh)).resolves.toBe('verified');
    await expect(verifySecretsKey(query, createCipher(oldKey))).rejects.toThrow(/SECRETS_KEY/);
  });
});
