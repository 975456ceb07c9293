-- What an outbox row counts for against the relay's cap on jobs per run (packages/outbox): 1 per job, and a
-- batch job (a payload with an `items` list, such as route-alerts) once per item it carries; a batch row (a JSON
-- array of `{jobId, payload}`) the sum of its jobs'. PostgreSQL computes it for every writer, from the payload
-- alone, so the relay's claim sums a column and the writer reads the weight back with the row's id: the rule
-- lives here only.
CREATE FUNCTION "outbox_job_weight"("payload" jsonb) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT CASE jsonb_typeof("payload")
           WHEN 'array' THEN (
             SELECT coalesce(sum(CASE jsonb_typeof(e -> 'payload' -> 'items')
                                   WHEN 'array' THEN greatest(jsonb_array_length(e -> 'payload' -> 'items'), 1) ELSE 1 END), 0)::integer
               FROM jsonb_array_elements("payload") AS e)
           ELSE CASE jsonb_typeof("payload" -> 'items')
                  WHEN 'array' THEN greatest(jsonb_array_length("payload" -> 'items'), 1) ELSE 1 END
         END
$fn$;

-- Rows waiting at upgrade time get theirs as the column is added.
ALTER TABLE "outbox_jobs" ADD COLUMN "weight" INTEGER NOT NULL GENERATED ALWAYS AS ("outbox_job_weight"("payload")) STORED;
