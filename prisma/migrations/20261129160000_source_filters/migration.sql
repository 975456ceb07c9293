-- A track's or account track's filters (CONTRACT 9 `filters`), as @hashwatch/post-filters stores them: every field
-- present, or NULL for none. The scanner applies them to what one packed query found for every tracker of a source.
ALTER TABLE "tracks" ADD COLUMN "filters" JSONB;
ALTER TABLE "account_tracks" ADD COLUMN "filters" JSONB;
ALTER TABLE "tracks" ADD CONSTRAINT "tracks_filters_check" CHECK ("filters" IS NULL OR jsonb_typeof("filters") = 'object');
ALTER TABLE "account_tracks" ADD CONSTRAINT "account_tracks_filters_check" CHECK ("filters" IS NULL OR jsonb_typeof("filters") = 'object');
