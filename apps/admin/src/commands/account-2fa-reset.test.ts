import { useTestEnvironment } from '@hashwatch/testing';
import { runCommand } from '../run-command';

describe('account:2fa-reset', () => {
  const env = useTestEnvironment();
  const prisma = () => env.database.db.prisma;
  const run = (...argv: string[]) => runCommand(argv, { prisma: prisma(), now: () => new Date() });

  it('turns 2FA off, drops its recovery codes and ends every session and pending 2FA sign-in', async () => {
    const created = await run('account:create', '--email', 'locked-out@example.com', '--plan', 'pro');
    const accountId = String(created.account_id);
    const later = new Date(Date.now() + 3_600_000);
    await prisma().user.update({ where: { id: accountId }, data: { totpSecretEnc: 'v1.sealed', totpPendingSecretEnc: 'v1.pending', totpLastStep: 123n } });
    await prisma().recoveryCode.create({ data: { userId: accountId, codeHash: Buffer.alloc(32, 1) } });
    await prisma().session.create({ data: { id: 'ses_2fa_reset', userId: accountId, tokenHash: Buffer.alloc(32, 2), expiresAt: later } });
    await prisma().loginChallenge.create({ data: { userId: accountId, tokenHash: Buffer.alloc(32, 3), expiresAt: later } });
    const other = String((await run('account:create', '--email', 'bystander@example.com', '--plan', 'pro')).account_id);
    await prisma().session.create({ data: { id: 'ses_bystander', userId: other, tokenHash: Buffer.alloc(32, 4), expiresAt: later } });

    expect(await run('account:2fa-reset', '--account', accountId)).toEqual({ account_id: accountId, two_factor_enabled: false });
    expect(await prisma().user.findUniqueOrThrow({ where: { id: accountId } })).toMatchObject({ totpSecretEnc: null, totpPendingSecretEnc: null, totpLastStep: null });
    expect(await prisma().recoveryCode.count({ where: { userId: accountId } })).toBe(0);
    expect(await prisma().session.count({ where: { userId: accountId } })).toBe(0);
    expect(await prisma().loginChallenge.count({ where: { userId: accountId } })).toBe(0);
    expect(await prisma().session.count({ where: { userId: other } })).toBe(1);
  });

  it('answers not_found for an unknown account and invalid_request without --account', async () => {
    await expect(run('account:2fa-reset', '--account', 'usr_missing')).rejects.toMatchObject({ code: 'not_found' });
    await expect(run('account:2fa-reset')).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('--account') });
  });
});
