import { assertJobId, cadenceSchedulerId, JobIdError, jobId } from './job-id';

describe('job ids', () => {
  it('names a cadence scheduler <job>-every-<n>s', () => {
    expect(cadenceSchedulerId('scan-sources', 10)).toBe('scan-sources-every-10s');
  });

  it('never contains ":" even when a part does, and keeps such ids distinct', () => {
    expect(jobId('sample', 'a:b')).toBe('sample-a%3Ab');
    expect(jobId('sample', 'a:b')).not.toBe(jobId('sample', 'a%3Ab'));
    expect(jobId('sample', 'x:y', 3)).not.toContain(':');
  });

  it('refuses ids BullMQ would refuse: empty, only digits, or with ":"', () => {
    for (const bad of ['', '12345', 'a:b']) expect(() => assertJobId(bad)).toThrow(JobIdError);
    expect(() => jobId('123')).toThrow(JobIdError);
    expect(assertJobId('route-post_1')).toBe('route-post_1');
  });
});
