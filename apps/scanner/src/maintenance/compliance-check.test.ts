import { SCANNER_LOCK_CLASS } from '../sources/lock-keys';
import { useScannerFixture } from '../test-support/scanner-fixture';
import { checkCompliance } from './compliance-check';

// X's batch compliance against the simulator's jobs and signed storage: every stored post is checked, whether or not
// the engagement poller polls it, and what X asks to remove is erased from every feed.
describe('X batch compliance of stored posts', () => {
  const fx = useScannerFixture();
  const now = () => new Date();
  const due = { minAgeSeconds: 0 };

  async function tick() {
    await fx.makeDue();
    return fx.scanner().runTick();
  }

  async function item(userId: string, xPostId: string) {
    const { rows } = await fx.pool().query('SELECT text, author_name, urls, media, quoted, deleted FROM feed_items WHERE user_id = $1 AND x_post_id = $2', [userId, xPostId]);
    return rows[0];
  }

  async function stored(tag: string) {
    const first = await fx.account();
    const second = await fx.account();
    await fx.track(first, tag);
    await fx.track(second, tag);
    const kept = fx.sim.state.injectPost({ author: `${tag}keep`, text: `stays #${tag}` });
    const deleted = fx.sim.state.injectPost({ author: `${tag}gone`, text: `deleted later #${tag}`, links: ['https://example.com/a'] });
    const hidden = fx.sim.state.injectPost({ author: `${tag}priv`, text: `author goes private #${tag}` });
    await tick();
    expect((await fx.items(first)).length).toBe(3);
    return { first, second, kept, deleted, hidden };
  }

  afterEach(async () => {
    // Each test leaves no job open and every post checked, so the next one starts clean.
    await fx.pool().query(`UPDATE compliance_jobs SET status = 'failed' WHERE status IN ('created', 'uploaded')`);
    await fx.pool().query('UPDATE x_posts SET compliance_job_id = NULL, compliance_checked_at = now()');
  });

  it('uploads the posts due, then erases what X asks to remove (deleted, author protected) from every account\'s feed', async () => {
    const { first, second, kept, deleted, hidden } = await stored('compl');
    fx.sim.state.deletePost(deleted.id);
    const author = fx.sim.state.store.userById(hidden.authorId);
    if (!author) throw new Error('no author');
    author.protected = true;
    const x = fx.xClient();

    const opened = await checkCompliance(fx.pool(), x, fx.logger, { settings: due });
    expect(opened).toMatchObject({ step: 'uploaded', posts: 3 });
    const applied = await checkCompliance(fx.pool(), x, fx.logger, { settings: due });
    expect(applied).toMatchObject({ step: 'applied', posts: 3, events: 2, erased: 2 });

    for (const user of [first, second]) {
      expect(await item(user, deleted.id)).toEqual({ text: '', author_name: '', urls: null, media: null, quoted: null, deleted: true });
      expect(await item(user, hidden.id)).toMatchObject({ text: '', deleted: true });
      expect(await item(user, kept.id)).toMatchObject({ text: `stays #compl`, deleted: false });
    }
    const { rows: posts } = await fx.pool().query('SELECT id, compliance_job_id, compliance_checked_at IS NOT NULL AS checked, deleted_at IS NOT NULL AS erased FROM x_posts WHERE id = ANY($1) ORDER BY id', [[kept.id, deleted.id, hidden.id]]);
    expect(posts.every((post) => post.compliance_job_id === null && post.checked)).toBe(true);
    expect(posts.filter((post) => post.erased).map((post) => post.id).sort()).toEqual([deleted.id, hidden.id].sort());
    const { rows: jobs } = await fx.pool().query(`SELECT status, post_count, erased FROM compliance_jobs WHERE id = $1`, [applied.step === 'applied' ? applied.jobId : '']);
    expect(jobs).toEqual([{ status: 'complete', post_count: 3, erased: 2 }]);
    // Checked a moment ago: nothing is due for a day.
    expect(await checkCompliance(fx.pool(), x, fx.logger, { settings: due })).toEqual({ step: 'idle' });
    const creates = fx.sim.state.requestLog.entries({ endpoint: 'compliance_jobs_create' });
    expect(creates).toHaveLength(1);
  });

  it('waits while X processes the job, and reads its status no more than once a step', async () => {
    const { deleted } = await stored('complwait');
    fx.sim.state.deletePost(deleted.id);
    fx.sim.state.compliance.processingMs = 60_000;
    const x = fx.xClient();
    try {
      const opened = await checkCompliance(fx.pool(), x, fx.logger, { settings: due });
      expect(opened.step).toBe('uploaded');
      fx.sim.state.requestLog.clear();
      expect(await checkCompliance(fx.pool(), x, fx.logger, { settings: due })).toMatchObject({ step: 'waiting', status: 'in_progress' });
      expect(fx.sim.state.requestLog.entries({ endpoint: 'compliance_jobs_read' })).toHaveLength(1);
      expect(fx.sim.state.requestLog.entries({ endpoint: 'compliance_jobs_create' })).toHaveLength(0);
    } finally {
      fx.sim.state.compliance.processingMs = 0;
    }
    expect(await checkCompliance(fx.pool(), x, fx.logger, { settings: due })).toMatchObject({ step: 'applied', erased: 1 });
  });

  it('releases the posts of a job X failed, and the next step opens a new job for them', async () => {
    const { deleted } = await stored('complfail');
    fx.sim.state.deletePost(deleted.id);
    fx.sim.state.compliance.failNext = true;
    const x = fx.xClient();
    const opened = await checkCompliance(fx.pool(), x, fx.logger, { settings: due });
    expect(await checkCompliance(fx.pool(), x, fx.logger, { settings: due })).toMatchObject({ step: 'failed', reason: 'failed' });
    const { rows } = await fx.pool().query('SELECT count(*)::int AS held FROM x_posts WHERE compliance_job_id IS NOT NULL');
    expect(rows[0].held).toBe(0);
    const reopened = await checkCompliance(fx.pool(), x, fx.logger, { settings: due });
    expect(reopened.step).toBe('uploaded');
    expect(reopened.step === 'uploaded' && opened.step === 'uploaded' && reopened.jobId !== opened.jobId).toBe(true);
    expect(await checkCompliance(fx.pool(), x, fx.logger, { settings: due })).toMatchObject({ step: 'applied', erased: 1 });
  });

  it('uploads a job left created by a crash before its upload, and gives up on one whose upload address expired', async () => {
    const { deleted } = await stored('complcrash');
    fx.sim.state.deletePost(deleted.id);
    const x = fx.xClient();
    // A crash right after X created the job and the posts were marked: the job row is `created`.
    const job = await x.createComplianceJob('crashed');
    await fx.pool().query(
      `INSERT INTO compliance_jobs (id, status, post_count, upload_url, upload_expires_at, download_url) VALUES ($1, 'created', 0, $2, $3, $4)`,
      [job.id, job.uploadUrl, job.uploadExpiresAt, job.downloadUrl],
    );
    await fx.pool().query(`UPDATE x_posts SET compliance_job_id = $1 WHERE compliance_checked_at IS NULL`, [job.id]);
    expect(await checkCompliance(fx.pool(), x, fx.logger, { settings: due })).toMatchObject({ step: 'uploaded', jobId: job.id, posts: 3 });
    expect(await checkCompliance(fx.pool(), x, fx.logger, { settings: due })).toMatchObject({ step: 'applied', erased: 1 });

    const stale = await fx.xClient().createComplianceJob('stale');
    await fx.pool().query(
      `INSERT INTO compliance_jobs (id, status, post_count, upload_url, upload_expires_at, download_url) VALUES ($1, 'created', 0, $2, now() - interval '1 minute', $3)`,
      [stale.id, stale.uploadUrl, stale.downloadUrl],
    );
    expect(await checkCompliance(fx.pool(), x, fx.logger, { settings: due })).toMatchObject({ step: 'failed', reason: 'upload expired' });
  });

  it('lets one replica at a time run a step', async () => {
    const holder = await fx.pool().connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1, -2)', [SCANNER_LOCK_CLASS]);
      expect(await checkCompliance(fx.pool(), fx.xClient(), fx.logger, { settings: due, now: now() })).toEqual({ step: 'busy' });
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1, -2)', [SCANNER_LOCK_CLASS]);
      holder.release();
    }
  });
});
