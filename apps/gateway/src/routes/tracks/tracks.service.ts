import type pg from 'pg';
import { normalizeFilters } from '@hashwatch/post-filters';
import type { SourcePatch } from '../sources/source-fields.schema';
import { createSource, deleteSource, listSources, SHARED_SOURCE_COLUMNS, sourceBody, updateSource, type CreatableSourceTable, type SourceRow } from '../sources/source-table';
import type { CreateTrack, TrackBody } from './tracks.schema';

interface TrackRow extends SourceRow {
  hashtag: string;
  lang: string | null;
  exclude_retweets: boolean;
}

const COLUMNS = `id, hashtag, lang, exclude_retweets, ${SHARED_SOURCE_COLUMNS}`;

const SOURCE: CreatableSourceTable = {
  table: 'tracks',
  columns: COLUMNS,
  noun: 'track',
  idPrefix: 'trk',
  limit: { of: (limits) => limits.hashtagsLimit, plural: 'hashtags' },
};

const toBody = (row: TrackRow): TrackBody => sourceBody(row);

function describe(hashtag: string, lang: string | null | undefined): string {
  return `#${hashtag}${lang ? ` (lang ${lang})` : ''}`;
}

export async function listTracks(pool: pg.Pool, userId: string): Promise<TrackBody[]> {
  return (await listSources<TrackRow>(pool, SOURCE, userId)).map(toBody);
}

export async function createTrack(pool: pg.Pool, userId: string, input: CreateTrack, now: Date): Promise<TrackBody> {
  const norm = input.hashtag.toLowerCase();
  const lang = input.lang ?? null;
  const row = await createSource<TrackRow>(pool, SOURCE, userId, {
    columns: { hashtag: input.hashtag, hashtag_norm: norm, lang, exclude_retweets: input.exclude_retweets ?? true, filters: normalizeFilters(input.filters) },
    duplicateWhere: "hashtag_norm = $2 AND COALESCE(lang, '') = COALESCE($3, '')",
    duplicateValues: [norm, lang],
    label: describe(input.hashtag, lang),
    flags: input,
  }, now);
  return toBody(row);
}

export async function updateTrack(pool: pg.Pool, userId: string, id: string, patch: SourcePatch): Promise<TrackBody> {
  return toBody(await updateSource<TrackRow>(pool, SOURCE, userId, id, patch));
}

export async function deleteTrack(pool: pg.Pool, userId: string, id: string): Promise<void> {
  await deleteSource(pool, SOURCE, userId, id);
}
