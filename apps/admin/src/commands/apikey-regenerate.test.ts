import { authenticateApiKey } from '@hashwatch/accounts';
import { useTestEnvironment } from '@hashwatch/testing';
import { runCommand } from '../run-command';

describe('apikey:regenerate', () => {
  const env = useTestEnvironment();
  const run = (...argv: string[]) => runCommand(argv, { prisma: env.database.db.prisma, now: () => new Date() });

  it('prints a new key that works and revokes the old one', async () => {
    const created = await run('account:create', '--email', 'rotate@example.com', '--plan', 'starter');
    const output = await run('apikey:regenerate', '--account', String(created.account_id));
    expect(Object.keys(output)).toEqual(['api_key']);
    expect(output.api_key).not.toBe(created.api_key);
    expect(await authenticateApiKey(env.database.db.prisma, String(output.api_key))).toMatchObject({ userId: created.account_id });
    expect(await authenticateApiKey(env.database.db.prisma, String(created.api_key))).toBeNull();
  });

  it('answers not_found for an unknown account', async () => {
    await expect(run('apikey:regenerate', '--account', 'usr_missing')).rejects.toMatchObject({
      code: 'not_found',
      message: 'account usr_missing not found',
    });
  });
});
