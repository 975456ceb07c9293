import { useTestEnvironment } from '@hashwatch/testing';
import { runCommand } from '../run-command';

describe('account:find', () => {
  const env = useTestEnvironment();
  const run = (...argv: string[]) => runCommand(argv, { prisma: env.database.db.prisma, now: () => new Date() });

  it('prints the id of the account with that email, whatever its case', async () => {
    const { account_id } = await run('account:create', '--email', 'demo@hashwatch.local', '--plan', 'business');
    expect(await run('account:find', '--email', 'Demo@Hashwatch.local')).toEqual({ account_id });
  });

  it('answers not_found when no account has the email', async () => {
    await expect(run('account:find', '--email', 'nobody@example.com')).rejects.toMatchObject({
      code: 'not_found',
      message: 'no account has the email nobody@example.com',
    });
  });
});
