import assert from 'node:assert/strict';
import { runPool } from './test-lanes.mjs';

describe('runPool: the workspaces beside the e2e lane', () => {
  const task = (name, weight, code, log) => ({
    name,
    weight,
    run: async () => {
      log.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, weight));
      log.push(`end ${name}`);
      return code;
    },
  });

  it('starts the heaviest first, never more than `concurrency` at once, and runs every task after a failure', async () => {
    const log = [];
    const code = await runPool([task('small', 5, 0, log), task('big', 40, 3, log), task('mid', 20, 1, log), task('tiny', 1, 0, log)], 2);
    assert.equal(code, 1, "the first failure to finish gives the code");
    assert.deepEqual(log.slice(0, 2), ['start big', 'start mid']);
    let running = 0;
    for (const entry of log) {
      running += entry.startsWith('start') ? 1 : -1;
      assert.ok(running <= 2, `at most two at once: ${log.join(', ')}`);
    }
    assert.equal(log.filter((entry) => entry.startsWith('end')).length, 4);
  });

  it('resolves 0 when every task passed, and with no task at all', async () => {
    assert.equal(await runPool([task('a', 1, 0, [])], 2), 0);
    assert.equal(await runPool([], 2), 0);
  });

  it('runs its own tasks in order on a lane of their own, and pool slots with nothing left take them too', async () => {
    const log = [];
    const code = await runPool([task('work', 30, 0, log)], 1, [task('e1', 20, 0, log), task('e2', 20, 0, log), task('e3', 20, 0, log)]);
    assert.equal(code, 0);
    assert.deepEqual(log.filter((entry) => entry.startsWith('start')), ['start e1', 'start work', 'start e2', 'start e3']);
    // e2 and e3 overlap: the own lane took one, the idle pool slot the other.
    assert.ok(log.indexOf('start e3') < log.indexOf('end e2'), log.join(', '));
  });
});
