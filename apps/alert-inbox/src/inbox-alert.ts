/** One alert as the inbox keeps it. */
export interface InboxAlert {
  receivedAt: string;
  /** `json`, `discord`, `slack` or `telegram`: which protocol it arrived in. */
  format: 'json' | 'discord' | 'slack' | 'telegram' | 'unknown';
  /** `post`, `engagement`, `digest`, `test`, or what the format says. */
  type: string;
  /** One readable line. */
  summary: string;
  /** The Standard Webhooks `webhook-id`, when sent. */
  webhookId: string | null;
  /** True when signed with ALERT_INBOX_SECRET, false when the signature did not verify, null when no secret is set. */
  verified: boolean | null;
  body: unknown;
}
