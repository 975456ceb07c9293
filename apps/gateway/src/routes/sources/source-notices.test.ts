import { transaction } from '@hashwatch/db';
import { raiseNotice } from '@hashwatch/notices';
import { request, useGateway } from '../../test-support/gateway-harness';

/** A source the account stops tracking takes its open notices with it: no scan of it will end them any more. */
describe('deleting a source resolves its notices', () => {
  const gw = useGateway();
  const pool = () => gw.env.database.db.pool;

  async function openNotices(userId: string): Promise<{ kind: string; subject: string }[]> {
    const { rows } = await pool().query<{ kind: string; subject: string }>(
      'SELECT kind, subject FROM notices WHERE user_id = $1 AND resolved_at IS NULL ORDER BY kind, subject',
      [userId],
    );
    return rows;
  }

  it('resolves the account’s failing and silent notices about the deleted track or account, with their sends, and nothing else', async () => {
    const { accountId, auth } = await gw.account('pro');
    const other = await gw.account('pro');
    const track = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'BTC' }).expect(201);
    const watched = await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'Alice' }).expect(201);
    await request(gw.app).post('/v1/tracks').set(other.auth).send({ hashtag: 'btc' }).expect(201);
    const raise = (userId: string, kind: 'source_failing' | 'source_silent', source: string) =>
      transaction(pool(), (client) => raiseNotice(client, { userId, kind, source }, { message: `${kind} ${source}` }));
    const failing = await raise(accountId, 'source_failing', '#btc');
    const silent = await raise(accountId, 'source_silent', '#btc');
    await raise(accountId, 'source_failing', '@alice');
    await raise(other.accountId, 'source_failing', '#btc');

    await request(gw.app).delete(`/v1/tracks/${track.body.id}`).set(auth).expect(200);
    expect(await openNotices(accountId)).toEqual([{ kind: 'source_failing', subject: '@alice' }]);
    expect(await openNotices(other.accountId)).toEqual([{ kind: 'source_failing', subject: '#btc' }]);
    const { rows: jobs } = await pool().query<{ job_id: string }>(`SELECT job_id FROM outbox_jobs WHERE job_id LIKE '%-resolved' ORDER BY job_id`);
    expect(jobs.map((job) => job.job_id).sort()).toEqual([`notice-${failing!.id}-resolved`, `notice-${silent!.id}-resolved`].sort());

    await request(gw.app).delete(`/v1/accounts/${watched.body.id}`).set(auth).expect(200);
    expect(await openNotices(accountId)).toEqual([]);
  });
});
