/**
 * At most `concurrency` password hashes run at once, and at most `waiting` more wait their turn; past that a hash
 * is refused at once with PasswordHashingBusyError. scrypt runs on libuv's thread pool (4 threads unless
 * UV_THREADPOOL_SIZE says otherwise), which DNS lookups, file reads and zlib share: with fewer hashes than threads
 * running, a burst of sign-ins leaves threads free for the DNS lookups of SMTP, Stripe and webhook calls.
 */
export interface HashingGateLimits {
  concurrency: number;
  waiting: number;
  /** What a refused caller is told to wait before retrying. */
  retryAfterSeconds: number;
}

/** Two of libuv's four threads for hashing; 32 waiting at ~100 ms each is a wait of about 1.6 s at most. */
export const DEFAULT_HASHING_LIMITS: HashingGateLimits = { concurrency: 2, waiting: 32, retryAfterSeconds: 2 };

/** A password hash was refused because the waiting line was full: answer 503 with Retry-After. */
export class PasswordHashingBusyError extends Error {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super('too many password checks are waiting; retry shortly');
    this.name = 'PasswordHashingBusyError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function isPasswordHashingBusy(error: unknown): error is PasswordHashingBusyError {
  return error instanceof PasswordHashingBusyError;
}

/** A counting semaphore with a bounded FIFO waiting line. */
export class HashingGate {
  private running = 0;
  private peak = 0;
  private readonly line: (() => void)[] = [];

  constructor(private readonly limits: HashingGateLimits) {
    if (!Number.isInteger(limits.concurrency) || limits.concurrency < 1) throw new Error('hashing concurrency must be a whole number of at least 1');
    if (!Number.isInteger(limits.waiting) || limits.waiting < 0) throw new Error('hashing waiting line must be a whole number of at least 0');
  }

  /** Runs `work` when a slot is free; throws PasswordHashingBusyError when the waiting line is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      if (this.line.length >= this.limits.waiting) throw new PasswordHashingBusyError(this.limits.retryAfterSeconds);
      await new Promise<void>((resolve) => this.line.push(resolve));
    } else {
      this.running += 1;
    }
    this.peak = Math.max(this.peak, this.running);
    try {
      return await work();
    } finally {
      const next = this.line.shift();
      // The slot passes straight to the next in line, so `running` never dips and no newcomer jumps the line.
      if (next) next();
      else this.running -= 1;
    }
  }

  /** Hashes running now, waiting now, and the most ever run at once. */
  load(): { running: number; waiting: number; peak: number } {
    return { running: this.running, waiting: this.line.length, peak: this.peak };
  }
}
