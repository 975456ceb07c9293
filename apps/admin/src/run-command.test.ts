import { useTestEnvironment } from '@hashwatch/testing';
import type { CommandDeps } from './command';
import { runCommand } from './run-command';

describe('runCommand', () => {
  const env = useTestEnvironment();
  const deps = (): CommandDeps => ({ prisma: env.database.db.prisma, now: () => new Date() });
  const invalid = (message: string | RegExp) => ({ code: 'invalid_request', message: expect.stringMatching(message) });

  it('answers invalid_request listing the commands when no command is given', async () => {
    await expect(runCommand([], deps())).rejects.toMatchObject(invalid(/^missing command: one of account:2fa-reset, account:create, .*plan:list, secrets:reseal, usage:report, or help$/));
  });

  it('answers invalid_request naming an unknown command', async () => {
    await expect(runCommand(['account:delete'], deps())).rejects.toMatchObject(invalid(/^unknown command account:delete:/));
  });

  it('does not treat inherited object keys as commands', async () => {
    await expect(runCommand(['toString'], deps())).rejects.toMatchObject(invalid(/^unknown command toString:/));
  });

  it('answers invalid_request naming an unknown flag and listing the known ones', async () => {
    await expect(runCommand(['account:create', '--email', 'a@example.com', '--plan', 'pro', '--name', 'Ann'], deps())).rejects.toMatchObject(
      invalid('unknown flag --name for account:create: its flags are --email, --plan'),
    );
  });

  it('answers invalid_request for a flag given twice', async () => {
    await expect(runCommand(['account:create', '--email', 'a@example.com', '--plan', 'pro', '--plan', 'business'], deps())).rejects.toMatchObject(
      invalid('--plan is given more than once'),
    );
  });

  it('answers invalid_request naming a flag without its value', async () => {
    await expect(runCommand(['account:create', '--plan', 'pro', '--email'], deps())).rejects.toMatchObject(invalid('--email needs a value'));
    await expect(runCommand(['account:create', '--email', '--plan', 'pro'], deps())).rejects.toMatchObject(invalid(/^--email needs a value/));
  });

  it('answers invalid_request for a stray argument', async () => {
    await expect(runCommand(['plan:list', 'pro'], deps())).rejects.toMatchObject(invalid('unexpected argument pro for plan:list: it takes no flags'));
  });

  it('answers invalid_request naming a missing required flag', async () => {
    await expect(runCommand(['account:create', '--email', 'a@example.com'], deps())).rejects.toMatchObject(invalid('--plan is required'));
  });

  it('answers invalid_request naming a flag whose value is malformed', async () => {
    await expect(runCommand(['account:create', '--email', 'not-an-email', '--plan', 'pro'], deps())).rejects.toMatchObject(
      invalid('--email must be an email address'),
    );
    await expect(runCommand(['account:create', '--email', 'a@example.com', '--plan', 'gold'], deps())).rejects.toMatchObject(
      invalid('--plan must be one of starter, pro, business'),
    );
  });

  it('accepts --flag=value as well as --flag value', async () => {
    const created = await runCommand(['account:create', '--email=eq@example.com', '--plan=starter'], deps());
    expect(created).toMatchObject({ account_id: expect.stringMatching(/^usr_/) });
  });

  it('lists every command with its usage on help', async () => {
    const help = await runCommand(['help'], deps());
    expect(help.commands).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ usage: 'plan:list' }),
        expect.objectContaining({ usage: expect.stringMatching(/^account:subscription --account ID --status/) }),
        expect.objectContaining({ usage: 'account:password --account ID --password P' }),
        expect.objectContaining({ usage: 'account:2fa-reset --account ID' }),
      ]),
    );
    expect(help.commands).toHaveLength(11);
  });
});
