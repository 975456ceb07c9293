import { z } from 'zod';
import { foldForMatch, keywordMatches, keywordText } from './keyword-match';

export const MAX_KEYWORDS = 20;
export const MAX_KEYWORD_LENGTH = 60;

/** A source's filters as stored and as the API answers them: every field present. */
export interface SourceFilters {
  keywords_any: string[];
  keywords_all: string[];
  keywords_none: string[];
  has_media: boolean;
  has_links: boolean;
  exclude_quotes: boolean;
  verified_only: boolean;
  min_followers: number;
}

/** No filter: what a source without `filters` answers. */
export const NO_FILTERS: SourceFilters = Object.freeze({
  keywords_any: [],
  keywords_all: [],
  keywords_none: [],
  has_media: false,
  has_links: false,
  exclude_quotes: false,
  verified_only: false,
  min_followers: 0,
}) as SourceFilters;

const keyword = z
  .string()
  .trim()
  .refine((value) => /^"[^"]*"$/.test(value) || !value.includes('"'), 'a quote may only open and close a phrase: "to the moon"')
  .refine((value) => [...keywordText(value)].length <= MAX_KEYWORD_LENGTH, `must be at most ${MAX_KEYWORD_LENGTH} characters`)
  .refine((value) => /[\p{L}\p{N}]/u.test(keywordText(value)), 'must hold a letter or a digit')
  .refine((value) => !/\p{Cc}/u.test(value), 'must not hold control characters');

const keywordList = (what: string) =>
  z
    .array(keyword)
    .min(1, 'must hold at least one word or phrase; leave the field out for none')
    .max(MAX_KEYWORDS, `at most ${MAX_KEYWORDS} words or phrases`)
    .optional()
    .meta({ description: `${what} Up to ${MAX_KEYWORDS} words or "quoted phrases" of at most ${MAX_KEYWORD_LENGTH} characters; case-insensitive, on word boundaries.` });

/** The same keyword twice in a list counts once: the first spelling is kept. */
function unique(keywords: readonly string[] | undefined): string[] {
  const seen = new Set<string>();
  return (keywords ?? []).filter((entry) => {
    const key = foldForMatch(keywordText(entry));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The API's `filters` field (CONTRACT 9): every field optional; a filter that can never match is refused. */
export const filtersInputSchema = z
  .strictObject({
    keywords_any: keywordList('A post must contain at least one of these.'),
    keywords_all: keywordList('A post must contain each of these.'),
    keywords_none: keywordList('A post must contain none of these.'),
    has_media: z.boolean().optional().meta({ description: 'Only posts with a photo, GIF or video. Default false.' }),
    has_links: z.boolean().optional().meta({ description: 'Only posts with a link (a link to the post\'s own photo or video does not count). Default false.' }),
    exclude_quotes: z.boolean().optional().meta({ description: 'Leave quote posts out. Default false.' }),
    verified_only: z.boolean().optional().meta({ description: 'Only posts whose author X shows as verified. Default false.' }),
    min_followers: z.number().int().min(0).max(1_000_000_000).optional().meta({ description: 'Only authors with at least this many followers when the post was detected. Default 0.' }),
  })
  .superRefine((input, ctx) => {
    const none = unique(input.keywords_none);
    const blocked = (entry: string) => none.find((word) => keywordMatches(word, keywordText(entry)));
    for (const entry of unique(input.keywords_all)) {
      const word = blocked(entry);
      if (word !== undefined) ctx.addIssue({ code: 'custom', path: ['keywords_none'], message: `can never match: every post needs ${entry} (keywords_all), which holds ${word}` });
    }
    const any = unique(input.keywords_any);
    if (any.length > 0 && any.every((entry) => blocked(entry) !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['keywords_none'], message: 'can never match: every word of keywords_any holds a word of keywords_none' });
    }
  })
  .meta({ id: 'FiltersInput', description: 'Which of a source\'s posts reach this account. Omitted fields mean no filter; null removes every filter.' });

export type FiltersInput = z.infer<typeof filtersInputSchema>;

/** Stored and answered filters: every field, lists possibly empty. */
export const filtersSchema = z
  .object({
    keywords_any: z.array(z.string()),
    keywords_all: z.array(z.string()),
    keywords_none: z.array(z.string()),
    has_media: z.boolean(),
    has_links: z.boolean(),
    exclude_quotes: z.boolean(),
    verified_only: z.boolean(),
    min_followers: z.number().int().min(0),
  })
  .meta({ id: 'Filters' });

/** The stored form of an input: every field present, each keyword once; null when it filters nothing. */
export function normalizeFilters(input: FiltersInput | null | undefined): SourceFilters | null {
  if (!input) return null;
  const filters: SourceFilters = {
    keywords_any: unique(input.keywords_any),
    keywords_all: unique(input.keywords_all),
    keywords_none: unique(input.keywords_none),
    has_media: input.has_media ?? false,
    has_links: input.has_links ?? false,
    exclude_quotes: input.exclude_quotes ?? false,
    verified_only: input.verified_only ?? false,
    min_followers: input.min_followers ?? 0,
  };
  return isNoFilter(filters) ? null : filters;
}

export function isNoFilter(filters: SourceFilters): boolean {
  return (
    filters.keywords_any.length === 0 &&
    filters.keywords_all.length === 0 &&
    filters.keywords_none.length === 0 &&
    !filters.has_media &&
    !filters.has_links &&
    !filters.exclude_quotes &&
    !filters.verified_only &&
    filters.min_followers === 0
  );
}

/**
 * A stored `filters` column (jsonb, null for none) read back. A field a row lacks (stored before the field existed)
 * takes its default; a row that does not parse at all (written by hand) reads as no filter, so one bad row never
 * stops the scan of every source packed with it, and loses nothing: every post passes.
 */
export function readStoredFilters(value: unknown): SourceFilters | null {
  if (value === null || value === undefined) return null;
  const parsed = filtersSchema.partial().safeParse(value);
  if (!parsed.success) return null;
  const filters = { ...NO_FILTERS, ...Object.fromEntries(Object.entries(parsed.data).filter(([, field]) => field !== undefined)) } as SourceFilters;
  return isNoFilter(filters) ? null : filters;
}
