import { useScannerFixture } from './test-support/scanner-fixture';

/** CONTRACT 8's quota notices, opened by the scanner's own feed writes (its usage update, in their transaction). */
describe('scanner quota notices', () => {
  const fx = useScannerFixture();

  async function tick() {
    await fx.makeDue();
    return fx.scanner().runTick();
  }

  async function notices(userId: string) {
    const { rows } = await fx.pool().query<{ id: string; kind: string; message: string; resolved_at: Date | null }>(
      'SELECT id, kind, message, resolved_at FROM notices WHERE user_id = $1 ORDER BY opened_at, kind',
      [userId],
    );
    return rows;
  }

  it('opens quota_warning with the cycle that crosses 80 % and quota_exhausted with the one that reaches 100 %, once each', async () => {
    const user = await fx.account({ alertsLimit: 5 });
    await fx.track(user, 'cobalt');
    for (let i = 0; i < 3; i += 1) fx.sim.state.injectPost({ author: 'cy', text: `#cobalt ${i}` });
    await tick();
    expect(await fx.usage(user)).toMatchObject({ alerts_used: 3 });
    expect(await notices(user)).toEqual([]);

    fx.sim.state.injectPost({ author: 'cy', text: '#cobalt 3' });
    await tick();
    expect(await fx.usage(user)).toMatchObject({ alerts_used: 4 });
    const [warning, ...none] = await notices(user);
    expect(none).toEqual([]);
    expect(warning).toMatchObject({ kind: 'quota_warning', resolved_at: null });
    expect(warning?.message).toMatch(/^80 % of this period's alert quota is used: 4 of 5 alerts\./);

    // Past the limit: one more stored (5 of 5), the rest dropped; one exhausted notice, and none for later cycles.
    for (let i = 4; i < 8; i += 1) fx.sim.state.injectPost({ author: 'cy', text: `#cobalt ${i}` });
    await tick();
    fx.sim.state.injectPost({ author: 'cy', text: '#cobalt 8' });
    await tick();
    expect(await fx.usage(user)).toMatchObject({ alerts_used: 5 });
    expect((await notices(user)).map((notice) => notice.kind)).toEqual(['quota_warning', 'quota_exhausted']);
    // Each opening is handed to the notifier once, in the transaction that stored the item.
    const { rows } = await fx.pool().query<{ job_id: string }>(
      `SELECT job_id FROM outbox_jobs WHERE name = 'deliver-notice' AND payload->>'noticeId' = ANY($1::text[]) ORDER BY job_id`,
      [(await notices(user)).map((notice) => notice.id)],
    );
    expect(rows.map((row) => row.job_id).sort()).toEqual((await notices(user)).map((notice) => `notice-${notice.id}-open`).sort());
  });
});
