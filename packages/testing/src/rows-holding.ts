import type pg from 'pg';

/** A row found by {@link rowsHolding}: its table and the row as JSON text. */
export interface HeldRow {
  table: string;
  row: string;
}

/**
 * Every row of every table of the public schema whose JSON text holds one of `needles` (case-insensitive): what an
 * erasure test expects to be empty once an account, its email or its ids are gone, whatever tables exist by then.
 */
export async function rowsHolding(pool: pg.Pool, needles: readonly string[]): Promise<HeldRow[]> {
  const { rows: tables } = await pool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const found: HeldRow[] = [];
  for (const { table_name: table } of tables) {
    const { rows } = await pool.query<{ row: string }>(
      `SELECT row_to_json(t)::text AS row FROM "${table}" t
        WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS n WHERE strpos(lower(row_to_json(t)::text), lower(n)) > 0)`,
      [needles],
    );
    found.push(...rows.map((row) => ({ table, row: row.row })));
  }
  return found;
}
