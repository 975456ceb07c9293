import { filtersInputSchema, NO_FILTERS, normalizeFilters, readStoredFilters, type SourceFilters } from './filters';
import { keywordMatches } from './keyword-match';
import { passesFilters, type PostFacts } from './passes-filters';

const post = (facts: Partial<PostFacts> = {}): PostFacts => ({ text: '', hasMedia: false, hasLinks: false, isQuote: false, authorVerified: false, authorFollowers: 0, ...facts });
const issues = (input: unknown) => {
  const parsed = filtersInputSchema.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('keywordMatches', () => {
  it('ignores case and finds a word on word boundaries only, hashtags and cashtags included', () => {
    expect(keywordMatches('BTC', 'the #btc, up')).toBe(true);
    expect(keywordMatches('btc', 'BTC')).toBe(true);
    expect(keywordMatches('btc', 'btcusd pumps')).toBe(false);
    expect(keywordMatches('btc', 'wbtc pumps')).toBe(false);
    expect(keywordMatches('btc', 'btc_usd')).toBe(false);
    expect(keywordMatches('$btc', 'buying $BTC now')).toBe(true);
    expect(keywordMatches('btc', 'buying $BTC now')).toBe(true);
  });

  it('matches a quoted phrase as its words in order, white space of any length between them', () => {
    expect(keywordMatches('"to the moon"', 'Going TO THE\n moon!')).toBe(true);
    expect(keywordMatches('"to the moon"', 'the moon to')).toBe(false);
    expect(keywordMatches('"to the moon"', 'to the moonshot')).toBe(false);
  });

  it('finds words in any script: on boundaries where words are spaced, inside runs where they are not', () => {
    expect(keywordMatches('биткоин', 'Курс: БИТКОИН растёт')).toBe(true);
    expect(keywordMatches('биткоин', 'биткоинов много')).toBe(false);
    expect(keywordMatches('ビットコイン', '今日のビットコイン価格')).toBe(true);
    expect(keywordMatches('比特币', '我爱比特币')).toBe(true);
    expect(keywordMatches('café', 'CAFÉ au lait')).toBe(true);
    expect(keywordMatches('🚀', 'launch 🚀🚀')).toBe(true);
    expect(keywordMatches('STRASSE', 'die Straße hier')).toBe(true);
    expect(keywordMatches('straße', 'STRASSE')).toBe(true);
    expect(keywordMatches('istanbul', 'İstanbul today')).toBe(true);
    expect(keywordMatches('ΟΔΟΣ', 'η οδος')).toBe(true);
    expect(keywordMatches('ｂｔｃ', 'btc up')).toBe(true);
  });
});

describe('passesFilters', () => {
  it('passes everything without filters, and applies each boolean and the follower floor', () => {
    expect(passesFilters(null, post())).toBe(true);
    const only = (changes: Partial<SourceFilters>): SourceFilters => ({ ...NO_FILTERS, ...changes });
    expect(passesFilters(only({ has_media: true }), post())).toBe(false);
    expect(passesFilters(only({ has_media: true }), post({ hasMedia: true }))).toBe(true);
    expect(passesFilters(only({ has_links: true }), post({ hasMedia: true }))).toBe(false);
    expect(passesFilters(only({ has_links: true }), post({ hasLinks: true }))).toBe(true);
    expect(passesFilters(only({ exclude_quotes: true }), post({ isQuote: true }))).toBe(false);
    expect(passesFilters(only({ verified_only: true }), post())).toBe(false);
    expect(passesFilters(only({ verified_only: true }), post({ authorVerified: true }))).toBe(true);
    expect(passesFilters(only({ min_followers: 1000 }), post({ authorFollowers: 999 }))).toBe(false);
    expect(passesFilters(only({ min_followers: 1000 }), post({ authorFollowers: 1000 }))).toBe(true);
    expect(passesFilters(only({ min_followers: 1 }), post({ authorFollowers: null }))).toBe(false);
  });

  it('needs one of keywords_any, each of keywords_all and none of keywords_none', () => {
    const filters = normalizeFilters({ keywords_any: ['eth', 'btc'], keywords_all: ['"all time high"'], keywords_none: ['giveaway'] });
    expect(passesFilters(filters, post({ text: 'BTC at an all time high' }))).toBe(true);
    expect(passesFilters(filters, post({ text: 'SOL at an all time high' }))).toBe(false);
    expect(passesFilters(filters, post({ text: 'btc near its all time' }))).toBe(false);
    expect(passesFilters(filters, post({ text: 'btc all time high GIVEAWAY' }))).toBe(false);
  });
});

describe('filtersInputSchema', () => {
  it('names the field of each bad value', () => {
    expect(issues({ keywords_any: Array.from({ length: 21 }, (_, i) => `w${i}`) })).toEqual(['keywords_any: at most 20 words or phrases']);
    expect(issues({ keywords_all: [`"${'a'.repeat(61)}"`] })).toEqual(['keywords_all.0: must be at most 60 characters']);
    expect(issues({ keywords_none: [] })).toEqual(['keywords_none: must hold at least one word or phrase; leave the field out for none']);
    expect(issues({ keywords_any: ['  '] })).toEqual(['keywords_any.0: must hold a letter or a digit']);
    expect(issues({ keywords_any: ['half"quoted'] })).toEqual(['keywords_any.0: a quote may only open and close a phrase: "to the moon"']);
    expect(issues({ min_followers: -1 })[0]).toMatch(/^min_followers: /);
    expect(issues({ min_followers: 1.5 })[0]).toMatch(/^min_followers: /);
    expect(issues({ has_media: 'yes' })[0]).toMatch(/^has_media: /);
    expect(issues({ colour: 'red' })[0]).toMatch(/colour/);
  });

  it('refuses a filter that can never match', () => {
    expect(issues({ keywords_all: ['BTC'], keywords_none: ['btc'] })).toEqual(['keywords_none: can never match: every post needs BTC (keywords_all), which holds btc']);
    expect(issues({ keywords_all: ['"to the moon"'], keywords_none: ['moon'] })).toHaveLength(1);
    expect(issues({ keywords_any: ['a1', 'b2'], keywords_none: ['A1', 'b2'] })).toEqual(['keywords_none: can never match: every word of keywords_any holds a word of keywords_none']);
    expect(issues({ keywords_any: ['a1', 'b2'], keywords_none: ['a1'] })).toEqual([]);
  });

  it('stores every field, each keyword once, and nothing for a filter that filters nothing', () => {
    expect(normalizeFilters(filtersInputSchema.parse({ keywords_any: ['BTC', 'btc', ' eth '], min_followers: 10 }))).toEqual({
      ...NO_FILTERS,
      keywords_any: ['BTC', 'eth'],
      min_followers: 10,
    });
    expect(normalizeFilters({ has_media: false, min_followers: 0 })).toBeNull();
    expect(normalizeFilters(null)).toBeNull();
    // A row stored before a field existed takes the field's default; one that does not parse filters nothing.
    expect(readStoredFilters({ keywords_any: ['btc'] })).toEqual({ ...NO_FILTERS, keywords_any: ['btc'] });
    expect(readStoredFilters({ keywords_any: 'btc' })).toBeNull();
    expect(readStoredFilters([])).toBeNull();
  });
});
