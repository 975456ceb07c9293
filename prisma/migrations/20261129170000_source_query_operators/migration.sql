-- The search operators every served tracker of a source asks for through its filters (has:media, has:links,
-- is:verified, -is:quote), written by the scanner's source sync: a packed query narrows the source with them, so X
-- sends only posts some tracker could keep. Empty: the source is searched whole.
ALTER TABLE "source_cursors" ADD COLUMN "query_operators" TEXT[] NOT NULL DEFAULT '{}';
