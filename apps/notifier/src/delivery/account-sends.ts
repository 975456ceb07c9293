/**
 * Sends in flight per account in this replica. A replica drains at most `NOTIFIER_CONCURRENCY` channels at once
 * (inline and as jobs); without a cap one account with many slow webhooks (a tarpit that takes the connection and
 * never answers) holds every slot for a send's time-out while other accounts' alerts wait (CONTRACT 5). Counted per
 * replica, in memory: a slot is this replica's to lose, and a count in Redis would outlive a killed replica.
 */
export interface AccountSends {
  /** Takes one send slot for `accountId`; false when the account already has `cap` sends in flight here. */
  tryTake(accountId: string): boolean;
  /** Gives back a slot {@link tryTake} took. */
  release(accountId: string): void;
  /** Sends in flight for `accountId` in this replica. */
  inFlight(accountId: string): number;
}

export function createAccountSends(cap: number): AccountSends {
  const counts = new Map<string, number>();
  return {
    tryTake(accountId) {
      const current = counts.get(accountId) ?? 0;
      if (current >= cap) return false;
      counts.set(accountId, current + 1);
      return true;
    },
    release(accountId) {
      const current = counts.get(accountId) ?? 0;
      if (current <= 1) counts.delete(accountId);
      else counts.set(accountId, current - 1);
    },
    inFlight: (accountId) => counts.get(accountId) ?? 0,
  };
}
