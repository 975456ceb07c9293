import { createSimulator, type Simulator } from '../simulator';
import { DEFAULT_APP_TOKEN, DEFAULT_USER_TOKEN, type SimulatorOptions } from '../simulator-options';

export const APP = { Authorization: `Bearer ${DEFAULT_APP_TOKEN}` };
export const USER = { Authorization: `Bearer ${DEFAULT_USER_TOKEN}` };

/** A simulator on a clock the test moves by hand (starting 2026-11-22T12:00:00Z). */
export function simulatorWithClock(options: Omit<SimulatorOptions, 'now'> = {}): Simulator & { clock: { now: number; advance(ms: number): void } } {
  const clock = {
    now: Date.parse('2026-11-22T12:00:00Z'),
    advance(ms: number) {
      clock.now += ms;
    },
  };
  return { ...createSimulator({ ...options, now: () => clock.now }), clock };
}
