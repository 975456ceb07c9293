import speakeasy from 'speakeasy';

const STEP_MS = 30_000;
// A code of the step before this one is refused once the server's clock has moved on a step: leave it this long
// to reach the server (typed into the page, then sent).
const MARGIN_MS = 5_000;

const stepAt = (at: number) => Math.floor(at / STEP_MS);

/**
 * An authenticator app that spends its codes as the gateway requires: RFC 6238 steps of 30 s, one step of drift
 * either side, each code once and never one older than the last one used (apps/gateway two-factor.service.ts).
 * So it takes the earliest step still accepted: at step t it hands out t − 1, t, t + 1 at once, and only a
 * fourth code waits for the clock.
 */
export class TotpCodes {
  private lastStep: number | null = null;
  /** Time spent waiting for the clock, in ms. */
  waitedMs = 0;

  constructor(private readonly secret: string) {}

  /** The next code the gateway accepts, waiting for the clock when the window is spent. */
  async next(): Promise<string> {
    const now = Date.now();
    let step = Math.max(this.lastStep === null ? -Infinity : this.lastStep + 1, stepAt(now) - 1);
    if (step === stepAt(now) - 1 && STEP_MS - (now % STEP_MS) < MARGIN_MS) step += 1;
    const started = Date.now();
    while (stepAt(Date.now()) < step - 1) await new Promise((resolve) => setTimeout(resolve, 200));
    this.waitedMs += Date.now() - started;
    this.lastStep = step;
    return speakeasy.totp({ secret: this.secret, encoding: 'base32', time: step * 30 + 1 });
  }
}
