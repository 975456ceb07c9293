-- The search operators every served tracker of a source asks for through its filters (has:media, has:links,
-- is:verified, -is:quote), written by the scanner's source sync: a packed query narrows the source with them, so X
-- sends only posts some tracker could keep. Empty: the source is searched whole.
ALTER TABLE "source_cursors" ADD COLUMN "query_operators" TEXT[] NOT NULL DEFAULT '{}';

-- What a post and its author showed when the post was first detected, for the dashboard's filter preview (the
-- scanner decides on the answer itself): X's verification of the author and their follower count, and whether
-- the post quotes one or carries a link other than to its own photo. NULL on posts stored before.
ALTER TABLE "x_posts" ADD COLUMN "author_verified" BOOLEAN;
ALTER TABLE "x_posts" ADD COLUMN "author_followers" INTEGER;
ALTER TABLE "x_posts" ADD COLUMN "is_quote" BOOLEAN;
ALTER TABLE "x_posts" ADD COLUMN "has_links" BOOLEAN;
