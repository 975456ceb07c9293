// npm run test:infra  (npm test runs these too)
import assert from 'node:assert/strict';
import { timed } from './output.mjs';

describe('timed', () => {
  it('says when a step starts and, once done, its whole seconds, and hands back its result', async () => {
    const lines = [];
    const clock = [1_000, 42_400];
    const result = await timed('build', async () => 'built', { log: (line) => lines.push(line), now: () => clock.shift() });
    assert.equal(result, 'built');
    assert.deepEqual(lines, ['build started', 'build done in 41 s']);
  });

  it('says nothing more when the step fails: the error names it', async () => {
    const lines = [];
    await assert.rejects(
      timed('migrate', async () => { throw new Error('migrations failed'); }, { log: (line) => lines.push(line) }),
      /migrations failed/,
    );
    assert.deepEqual(lines, ['migrate started']);
  });
});
