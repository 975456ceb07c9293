import { securityChangeMail, type SecurityChange } from '@hashwatch/accounts';
import type { GatewayDeps } from '../deps';
import { publicLink, selfServiceOptions } from '../routes/session/self-service-options';

export type { SecurityChange };

/**
 * Mails the account's address that `change` happened, after the change was committed, without holding the request:
 * the mail is sent in the background and a failure is logged (never its address). Nothing is sent without SMTP_URL.
 */
export function mailSecurityChange(deps: GatewayDeps, userId: string, change: SecurityChange): void {
  const options = selfServiceOptions(deps);
  const mailer = options.mailer;
  if (!mailer) return;
  const send = async (): Promise<void> => {
    const { rows } = await deps.db.pool.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [userId]);
    const to = rows[0]?.email;
    if (!to) return;
    await mailer.send({ to, ...securityChangeMail(change, publicLink(options, '/forgot-password')) });
  };
  void send().catch((error: unknown) => {
    deps.logger.error('security mail failed', { change: change.kind, error: error instanceof Error ? error.message : String(error) });
  });
}
