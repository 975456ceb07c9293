import type pg from 'pg';
import type { Logger } from '@hashwatch/logger';
import type { XClient } from '@hashwatch/x-api';
import type { Source } from '../sources/source';
import { SOURCE_COLUMNS, toSources, type SourceRow } from './stream-store';
import { markStreamed, recordGap, streamedKeys, unmarkStreamed } from './coverage';
import { isOurRule, planRules, ruleSources, type ExistingRule, type RuleLimits } from './rule-plan';

export interface RuleSyncResult {
  /** Our rules on X after the sync. */
  rules: number;
  /** Wanted sources those rules cover. */
  covered: number;
  /** Wanted sources left to search (the rule cap, or terms longer than a rule). */
  uncovered: number;
  added: number;
  deleted: number;
}

// Every source the service needs, fastest cadence first: under the rule cap, the sources whose accounts pay for the
// shortest intervals get the stream, the rest keep being searched. A watched account whose mentions are asked for
// stays searched (`from:handle OR @handle`): rules carry no mentions.
const WANTED_SOURCES = `SELECT ${SOURCE_COLUMNS} FROM source_cursors WHERE NOT with_mentions ORDER BY interval_seconds, source_key`;

async function wantedSources(pool: pg.Pool): Promise<Source[]> {
  const { rows } = await pool.query<SourceRow>(WANTED_SOURCES);
  return toSources(rows);
}

/**
 * Brings the X app's filtered-stream rules in line with the sources (planRules), then the sources' marks with the
 * rules as X lists them afterwards: a covered source joins the stream only while `connected` (its rule then matches
 * on a live connection), and a source no rule covers any more goes back to search, its cursor moved up to what the
 * stream covered for it. Rules replaced at the cap leave their sources unmatched for a moment: while connected that
 * moment is recorded as a gap and back-filled.
 */
export async function syncStreamRules(options: { pool: pg.Pool; x: XClient; logger: Logger; limits: RuleLimits; connected: boolean }): Promise<RuleSyncResult> {
  const { pool, x, logger, limits, connected } = options;
  const wanted = await wantedSources(pool);
  const wantedKeys = new Set(wanted.map((source) => source.key));
  let rules: ExistingRule[] = await x.streamRules();
  const plan = planRules(rules, wanted, limits);
  const startedAt = new Date();
  let added = 0;
  let deleted = 0;
  const created: ExistingRule[] = [];
  const add = async (batch: typeof plan.addFirst) => {
    if (batch.length === 0) return;
    const change = await x.addStreamRules(batch);
    added += change.created.length;
    created.push(...change.created);
    if (change.errors.length > 0) logger.warn('stream rules refused', { errors: change.errors.slice(0, 5), refused: change.errors.length });
  };
  // What the marks follow: the sources our rules on X cover (and are wanted), as listed or as known so far.
  const coveredBy = (list: readonly ExistingRule[]) => new Set(list.filter(isOurRule).flatMap((rule) => ruleSources(rule.value)).filter((key) => wantedKeys.has(key)));
  const unmarkUncovered = async (covered: ReadonlySet<string>, goneAt: Date) => {
    const gone = (await streamedKeys(pool)).filter((key) => !covered.has(key));
    if (gone.length > 0) await unmarkStreamed(pool, gone, goneAt);
  };

  await add(plan.addFirst);
  const deletedAt = new Date();
  if (plan.delete.length > 0) {
    deleted = (await x.deleteStreamRules(plan.delete)).deleted;
    try {
      if (plan.addAfter.length > 0) {
        await add(plan.addAfter);
        if (connected) await recordGap(pool, deletedAt);
      }
    } catch (error) {
      // The deleted rules' sources lost their rule at deletedAt: back to search from there, not from whenever a
      // later sync succeeds.
      const gone = new Set(plan.delete);
      await unmarkUncovered(coveredBy([...rules.filter((rule) => !gone.has(rule.id)), ...created]), deletedAt);
      throw error;
    }
  } else await add(plan.addAfter);
  if (added > 0 || deleted > 0) {
    rules = await x.streamRules();
    logger.info('stream rules synced', { added, deleted, uncovered: plan.uncovered.length });
  }
  const covered = coveredBy(rules);
  await unmarkUncovered(covered, plan.delete.length > 0 ? deletedAt : startedAt);
  if (connected) await markStreamed(pool, [...covered]);
  return { rules: rules.filter(isOurRule).length, covered: covered.size, uncovered: wanted.length - covered.size, added, deleted };
}
