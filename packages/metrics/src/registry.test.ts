import { createMetricsRegistry } from './registry';

describe('createMetricsRegistry', () => {
  it('exposes the default process metrics labelled with the app', async () => {
    const registry = createMetricsRegistry('scanner');
    const text = await registry.metrics();
    expect(text).toMatch(/^process_cpu_user_seconds_total\{app="scanner"\} \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds\{app="scanner"\} /m);
  });

  it('keeps each registry apart, so two apps in one test process do not mix series', async () => {
    const one = createMetricsRegistry('gateway');
    const two = createMetricsRegistry('notifier');
    expect(await one.metrics()).not.toContain('app="notifier"');
    expect(await two.metrics()).not.toContain('app="gateway"');
  });
});
