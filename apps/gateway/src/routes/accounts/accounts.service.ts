import type pg from 'pg';
import { normalizeFilters } from '@hashwatch/post-filters';
import type { SourcePatch } from '../sources/source-fields.schema';
import { createSource, deleteSource, listSources, SHARED_SOURCE_COLUMNS, sourceBody, updateSource, type CreatableSourceTable, type SourceRow } from '../sources/source-table';
import type { AccountTrackBody, CreateAccountTrack } from './accounts.schema';

interface AccountTrackRow extends SourceRow {
  username: string;
  exclude_replies: boolean;
  include_mentions: boolean;
}

const COLUMNS = `id, username, exclude_replies, include_mentions, ${SHARED_SOURCE_COLUMNS}`;

const SOURCE: CreatableSourceTable = {
  table: 'account_tracks',
  columns: COLUMNS,
  noun: 'account',
  idPrefix: 'acc',
  limit: { of: (limits) => limits.accountsLimit, plural: 'accounts' },
};

const toBody = (row: AccountTrackRow): AccountTrackBody => sourceBody(row);

export async function listAccountTracks(pool: pg.Pool, userId: string): Promise<AccountTrackBody[]> {
  return (await listSources<AccountTrackRow>(pool, SOURCE, userId)).map(toBody);
}

export async function createAccountTrack(pool: pg.Pool, userId: string, input: CreateAccountTrack, now: Date): Promise<AccountTrackBody> {
  const norm = input.username.toLowerCase();
  const row = await createSource<AccountTrackRow>(pool, SOURCE, userId, {
    columns: { username: input.username, username_norm: norm, exclude_replies: input.exclude_replies ?? true, include_mentions: input.include_mentions ?? false, filters: normalizeFilters(input.filters) },
    duplicateWhere: 'username_norm = $2',
    duplicateValues: [norm],
    label: `@${input.username}`,
    flags: input,
  }, now);
  return toBody(row);
}

export async function updateAccountTrack(pool: pg.Pool, userId: string, id: string, patch: SourcePatch): Promise<AccountTrackBody> {
  return toBody(await updateSource<AccountTrackRow>(pool, SOURCE, userId, id, patch));
}

export async function deleteAccountTrack(pool: pg.Pool, userId: string, id: string): Promise<void> {
  await deleteSource(pool, SOURCE, userId, id);
}
