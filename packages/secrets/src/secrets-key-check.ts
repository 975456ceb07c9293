import { createCipher, SecretsError, type Cipher } from './cipher';

/**
 * Runs one SQL statement with positional parameters and answers its rows. The caller adapts its client (a pg
 * pool, a client inside a transaction, a Prisma transaction), so this package needs no database driver.
 */
export type SqlQuery = (sql: string, values: unknown[]) => Promise<Record<string, unknown>[]>;

/** Every column that holds a sealed secret. The upgrade check and `secrets:reseal` read this one list. */
export const SEALED_COLUMNS = [
  { table: 'users', column: 'totp_secret_enc' },
  { table: 'users', column: 'totp_pending_secret_enc' },
  { table: 'notification_channels', column: 'signing_secret_enc' },
  { table: 'notification_channels', column: 'bot_token_enc' },
] as const;

/** What the check value holds once opened; any other plaintext is a mismatch too. */
const CHECK_PLAINTEXT = 'hashwatch secrets key check v1';
// The table holds one row (a CHECK constraint in the migration keeps it so).
const CHECK_ID = 1;

/**
 * The configured keys (SECRETS_KEY, and SECRETS_KEY_PREVIOUS when set) do not open the secrets already in the
 * database. The message is one line naming SECRETS_KEY and the ways out; it never holds a key or a secret.
 */
export class SecretsKeyMismatchError extends SecretsError {
  constructor(what: string) {
    super(
      `SECRETS_KEY (nor SECRETS_KEY_PREVIOUS, when set) does not open ${what}: start with the SECRETS_KEY they were sealed with ` +
        '(or that key as SECRETS_KEY_PREVIOUS, then run secrets:reseal), or start from an empty database',
    );
    this.name = 'SecretsKeyMismatchError';
  }
}

/** The plaintext of a sealed value, or undefined when neither key opens it. */
function tryOpen(cipher: Cipher, sealed: unknown): string | undefined {
  if (typeof sealed !== 'string') return undefined;
  try {
    return cipher.decrypt(sealed);
  } catch (error) {
    if (error instanceof SecretsError) return undefined;
    throw error;
  }
}

function opensCheck(cipher: Cipher, sealed: unknown): boolean {
  return tryOpen(cipher, sealed) === CHECK_PLAINTEXT;
}

async function readCheck(query: SqlQuery): Promise<unknown> {
  const rows = await query('SELECT sealed FROM secrets_key_checks WHERE id = $1', [CHECK_ID]);
  return rows[0]?.sealed;
}

/**
 * Start-up check of every app that opens secrets: the database's key check value must open with the configured
 * keys. The first app to start on a database without one writes it; on a database that holds secrets sealed
 * before the check value existed (an upgrade), one secret of each sealed column must open first. Safe when
 * several apps start at once: one insert wins, and the others verify what it wrote.
 *
 * @returns `verified` when a check value was there, `recorded` when this call wrote it.
 * @throws SecretsKeyMismatchError when the keys do not open the check value (or, on upgrade, a stored secret).
 */
export async function verifySecretsKey(query: SqlQuery, cipher: Cipher): Promise<'verified' | 'recorded'> {
  const existing = await readCheck(query);
  if (existing !== undefined) {
    if (!opensCheck(cipher, existing)) throw new SecretsKeyMismatchError('the key check value in the database (secrets_key_checks)');
    return 'verified';
  }
  for (const { table, column } of SEALED_COLUMNS) {
    const rows = await query(`SELECT ${column} AS sealed FROM ${table} WHERE ${column} IS NOT NULL LIMIT 1`, []);
    if (rows[0] && tryOpen(cipher, rows[0].sealed) === undefined) throw new SecretsKeyMismatchError(`the secrets already in the database (${table}.${column})`);
  }
  const inserted = await query('INSERT INTO secrets_key_checks (id, sealed) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id', [
    CHECK_ID,
    cipher.encrypt(CHECK_PLAINTEXT),
  ]);
  if (inserted.length > 0) return 'recorded';
  // Another app wrote it first, perhaps with another key.
  if (!opensCheck(cipher, await readCheck(query))) throw new SecretsKeyMismatchError('the key check value in the database (secrets_key_checks)');
  return 'verified';
}

/**
 * Re-seals every stored secret and the key check value with the current key, opening each with the current or
 * the previous key. Run it inside one transaction (`query` bound to it): the rows are locked as they are read,
 * and a secret that neither key opens throws before anything is written, so the caller's rollback leaves every
 * value as it was.
 *
 * @returns how many secrets were re-sealed (the check value not counted).
 * @throws SecretsKeyMismatchError naming the first column (and row id) whose secret neither key opens.
 */
export async function resealSecrets(query: SqlQuery, cipher: Cipher): Promise<number> {
  const updates: { table: string; column: string; ids: string[]; sealed: string[] }[] = [];
  for (const { table, column } of SEALED_COLUMNS) {
    const rows = await query(`SELECT id, ${column} AS sealed FROM ${table} WHERE ${column} IS NOT NULL ORDER BY id FOR UPDATE`, []);
    const ids: string[] = [];
    const sealed: string[] = [];
    for (const row of rows) {
      const plaintext = tryOpen(cipher, row.sealed);
      if (plaintext === undefined) {
        throw new SecretsKeyMismatchError(`the secret in ${table}.${column} of row ${String(row.id)}; nothing was re-sealed`);
      }
      ids.push(String(row.id));
      sealed.push(cipher.encrypt(plaintext));
    }
    updates.push({ table, column, ids, sealed });
  }
  const check = await query('SELECT sealed FROM secrets_key_checks WHERE id = $1 FOR UPDATE', [CHECK_ID]);
  if (check[0] && !opensCheck(cipher, check[0].sealed)) {
    throw new SecretsKeyMismatchError('the key check value in the database (secrets_key_checks); nothing was re-sealed');
  }

  let resealed = 0;
  for (const { table, column, ids, sealed } of updates) {
    if (ids.length === 0) continue;
    await query(
      `UPDATE ${table} t SET ${column} = v.sealed FROM unnest($1::text[], $2::text[]) AS v(id, sealed) WHERE t.id = v.id`,
      [ids, sealed],
    );
    resealed += ids.length;
  }
  await query(
    `INSERT INTO secrets_key_checks (id, sealed) VALUES ($1, $2)
     ON CONFLICT (id) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = now()`,
    [CHECK_ID, cipher.encrypt(CHECK_PLAINTEXT)],
  );
  return resealed;
}

/**
 * The cipher of an app that opens sealed secrets, checked against the database before the app serves (see
 * {@link verifySecretsKey}): a key that cannot open what is stored stops the app at start-up instead of
 * failing request after request or delivery after delivery.
 */
export async function openVerifiedCipher(
  keys: { SECRETS_KEY: string; SECRETS_KEY_PREVIOUS?: string | undefined },
  query: SqlQuery,
): Promise<{ cipher: Cipher; outcome: 'verified' | 'recorded' }> {
  const cipher = createCipher(keys.SECRETS_KEY, keys.SECRETS_KEY_PREVIOUS);
  return { cipher, outcome: await verifySecretsKey(query, cipher) };
}
