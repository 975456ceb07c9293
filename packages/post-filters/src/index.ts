export {
  filtersInputSchema,
  filtersSchema,
  isNoFilter,
  MAX_KEYWORD_LENGTH,
  MAX_KEYWORDS,
  NO_FILTERS,
  normalizeFilters,
  readStoredFilters,
  type FiltersInput,
  type SourceFilters,
} from './filters';
export { foldForMatch, keywordMatches, keywordText } from './keyword-match';
export { passesFilters, type PostFacts } from './passes-filters';
