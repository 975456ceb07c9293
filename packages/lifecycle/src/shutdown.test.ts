import { createShutdown } from './shutdown';
import { captureLogger } from '@hashwatch/testing';

function setup(timeoutMs = 1_000) {
  const { logger, lines } = captureLogger();
  const exit = jest.fn<void, [number]>();
  const shutdown = createShutdown({ logger, timeoutMs, exit });
  return { shutdown, exit, lines };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createShutdown', () => {
  it('runs the steps in reverse registration order, one at a time, then exits 0', async () => {
    const { shutdown, exit } = setup();
    const order: string[] = [];
    const step = (name: string) => async () => {
      order.push(`${name} start`);
      await sleep(5);
      order.push(`${name} end`);
    };
    shutdown.onShutdown('database', step('database'));
    shutdown.onShutdown('queues', step('queues'));
    shutdown.onShutdown('workers', step('workers'));
    shutdown.onShutdown('http', step('http'));

    await shutdown.shutdown('test');

    expect(order).toEqual([
      'http start', 'http end', 'workers start', 'workers end',
      'queues start', 'queues end', 'database start', 'database end',
    ]);
    expect(exit).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('logs a failing step, still runs the others, and exits 1', async () => {
    const { shutdown, exit, lines } = setup();
    const ran: string[] = [];
    shutdown.onShutdown('database', () => {
      ran.push('database');
    });
    shutdown.onShutdown('workers', async () => {
      throw new Error('redis gone');
    });
    shutdown.onShutdown('http', () => {
      throw new Error('already closed');
    });

    await shutdown.shutdown('test');

    expect(ran).toEqual(['database']);
    expect(lines.filter((line) => line.message === 'shutdown step failed').map((line) => line.step)).toEqual(['http', 'workers']);
    expect(exit).toHaveBeenCalledWith(1);
  });

  it('gives up after timeoutMs on a step that hangs, skips the rest and exits 1', async () => {
    const { shutdown, exit, lines } = setup(100);
    const ran: string[] = [];
    shutdown.onShutdown('database', () => {
      ran.push('database');
    });
    shutdown.onShutdown('workers', () => new Promise(() => undefined));

    const started = Date.now();
    await shutdown.shutdown('test');

    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(exit).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(1);
    expect(ran).toEqual([]);
    expect(lines).toContainEqual(expect.objectContaining({ message: 'shutdown timed out', step: 'workers', skipped: ['database'] }));
  });

  it('runs the steps once however often it is asked', async () => {
    const { shutdown, exit } = setup();
    const step = jest.fn(() => sleep(20));
    shutdown.onShutdown('workers', step);

    expect(shutdown.isShuttingDown()).toBe(false);
    const first = shutdown.shutdown('SIGTERM');
    expect(shutdown.isShuttingDown()).toBe(true);
    const second = shutdown.shutdown('SIGINT');
    await Promise.all([first, second]);
    await shutdown.shutdown('again');

    expect(step).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledTimes(1);
  });

  it('also runs a step registered while shutting down, first (it started last)', async () => {
    const { shutdown } = setup();
    const order: string[] = [];
    shutdown.onShutdown('database', () => {
      order.push('database');
    });
    shutdown.onShutdown('workers', () => {
      order.push('workers');
      shutdown.onShutdown('late', () => {
        order.push('late');
      });
    });

    await shutdown.shutdown('test');

    expect(order).toEqual(['workers', 'late', 'database']);
  });

  it('shuts down once on SIGTERM then SIGINT, attaching its listeners only once', async () => {
    const { shutdown, exit, lines } = setup();
    const step = jest.fn();
    shutdown.onShutdown('workers', step);
    const before = { term: process.listenerCount('SIGTERM'), int: process.listenerCount('SIGINT') };

    const detach = shutdown.listen();
    expect(shutdown.listen()).toBe(detach);
    expect(process.listenerCount('SIGTERM')).toBe(before.term + 1);
    expect(process.listenerCount('SIGINT')).toBe(before.int + 1);
    try {
      process.emit('SIGTERM', 'SIGTERM');
      process.emit('SIGINT', 'SIGINT');
      await sleep(20);
    } finally {
      detach();
    }

    expect(step).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledTimes(1);
    expect(lines).toContainEqual(expect.objectContaining({ message: 'shutting down', reason: 'SIGTERM' }));
    expect(lines).toContainEqual(expect.objectContaining({ message: 'shutdown already in progress', reason: 'SIGINT' }));
    expect(process.listenerCount('SIGTERM')).toBe(before.term);
    expect(process.listenerCount('SIGINT')).toBe(before.int);
  });
});
