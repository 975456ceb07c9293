import { createSimulator, type Simulator } from '../simulator';
import type { SimulatorOptions } from '../simulator-options';

/** A simulator that does not listen (hand `app` to supertest), on a clock the test moves by hand (starting 2026-11-22T12:00:00Z). */
export function simulatorWithClock(options: Omit<SimulatorOptions, 'now'> = {}): Simulator & { clock: { now: number; advance(ms: number): void } } {
  const clock = {
    now: Date.parse('2026-11-22T12:00:00Z'),
    advance(ms: number) {
      clock.now += ms;
    },
  };
  return { ...createSimulator({ ...options, now: () => clock.now }), clock };
}
