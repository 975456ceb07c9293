import { verifyPassword } from '@hashwatch/secrets';
import { startMailReceiver, useTestEnvironment, waitFor } from '@hashwatch/testing';
import { runCommand } from '../run-command';
import { createSecurityNotifier } from '../security-mail';

describe('account:password', () => {
  const env = useTestEnvironment();
  const prisma = () => env.database.db.prisma;
  const run = (...argv: string[]) => runCommand(argv, { prisma: prisma(), now: () => new Date() });

  it('sets a password the account signs in with, stored only as a hash, and ends its sessions, 2FA steps and reset links', async () => {
    const created = await run('account:create', '--email', 'demo-pw@example.com', '--plan', 'business');
    const accountId = String(created.account_id);
    const later = new Date(Date.now() + 3_600_000);
    await prisma().session.create({ data: { id: 'ses_admin_pw', userId: accountId, tokenHash: Buffer.alloc(32, 7), expiresAt: later } });
    await prisma().loginChallenge.create({ data: { userId: accountId, tokenHash: Buffer.alloc(32, 8), expiresAt: later } });
    await prisma().passwordReset.create({ data: { userId: accountId, tokenHash: Buffer.alloc(32, 9), expiresAt: later } });
    const output = await run('account:password', '--account', accountId, '--password', 'a demo password of ours');
    expect(output).toEqual({ account_id: accountId, sessions_ended: 1 });
    const user = await prisma().user.findUniqueOrThrow({ where: { id: accountId } });
    expect(user.passwordHash).not.toContain('a demo password of ours');
    expect(await verifyPassword('a demo password of ours', user.passwordHash)).toBe(true);
    expect(await prisma().session.count({ where: { userId: accountId } })).toBe(0);
    // Nor can a 2FA step begun with the old password, or a reset link sent before, still finish.
    expect(await prisma().loginChallenge.count({ where: { userId: accountId } })).toBe(0);
    expect(await prisma().passwordReset.count({ where: { userId: accountId } })).toBe(0);
  });

  it('refuses a short password and an unknown account, changing nothing', async () => {
    const created = await run('account:create', '--email', 'demo-pw2@example.com', '--plan', 'starter');
    await expect(run('account:password', '--account', String(created.account_id), '--password', 'short')).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('--password must be 12 to 200 characters'),
    });
    expect((await prisma().user.findUniqueOrThrow({ where: { id: String(created.account_id) } })).passwordHash).toBeNull();
    await expect(run('account:password', '--account', 'usr_missing', '--password', 'long enough password')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('mails the account that an operator changed its password, when SMTP_URL is set', async () => {
    const receiver = await startMailReceiver();
    try {
      const created = await run('account:create', '--email', 'demo-pw3@example.com', '--plan', 'pro');
      const warnings: string[] = [];
      const notify = createSecurityNotifier({ prisma: prisma(), smtpUrl: receiver.url, from: 'Hashwatch <no-reply@example.com>', publicUrl: 'https://watch.example.com', warn: (m) => warnings.push(m) });
      await runCommand(['account:password', '--account', String(created.account_id), '--password', 'an operator set this one'], { prisma: prisma(), now: () => new Date(), notify });
      await waitFor(async () => receiver.mails.length >= 1, 10_000, 'the password mail');
      expect(receiver.mails[0]).toMatchObject({ to: ['demo-pw3@example.com'], subject: 'Your Hashwatch password was changed' });
      expect(receiver.mails[0]?.text).not.toContain('an operator set this one');
      expect(warnings).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
