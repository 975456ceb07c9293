/**
 * Sends in flight per account in this replica. A replica drains at most `NOTIFIER_CONCURRENCY` channels at once
 * (inline and as jobs); without a cap one account with many slow webhooks (a tarpit that takes the connection and
 * never answers) holds every slot for a send's time-out while other accounts' alerts wait (CONTRACT 5). Counted per
 * replica, in memory: a slot is this replica's to lose, and a count in Redis would outlive a killed replica.
 */
export interface AccountSends {
  /** Takes one send slot for `accountId` (`channelId`'s account); false when it already has `cap` sends in flight here. */
  tryTake(accountId: string, channelId: string): boolean;
  /**
   * Whether the account `channelId` had when it last took a slot here is at its cap now: a drain then claims nothing.
   * False for a channel not seen yet.
   */
  busy(channelId: string): boolean;
  /** Gives back a slot {@link tryTake} took. */
  release(accountId: string): void;
  /** Sends in flight for `accountId` in this replica. */
  inFlight(accountId: string): number;
}

// Channels whose account one replica remembers; past this the memory starts over.
const MAX_REMEMBERED_CHANNELS = 10_000;

export function createAccountSends(cap: number): AccountSends {
  const counts = new Map<string, number>();
  const accountOf = new Map<string, string>();
  return {
    tryTake(accountId, channelId) {
      if (accountOf.get(channelId) !== accountId) {
        if (accountOf.size >= MAX_REMEMBERED_CHANNELS) accountOf.clear();
        accountOf.set(channelId, accountId);
      }
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
    busy(channelId) {
      const accountId = accountOf.get(channelId);
      return accountId !== undefined && (counts.get(accountId) ?? 0) >= cap;
    },
    inFlight: (accountId) => counts.get(accountId) ?? 0,
  };
}
