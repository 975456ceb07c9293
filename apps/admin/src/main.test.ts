import { execFile } from 'node:child_process';
import path from 'node:path';
import { authenticateApiKey } from '@hashwatch/accounts';
import { startMailReceiver, useTestEnvironment, waitFor, type MailReceiver } from '@hashwatch/testing';

const adminDir = path.join(__dirname, '..');
const repoDir = path.join(adminDir, '../..');
const tsxCli = require.resolve('tsx/cli');

// Each case starts a real process that compiles TypeScript on the fly: seconds, more on a busy machine.
jest.setTimeout(60_000);

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
}

function spawn(file: string, args: string[], cwd: string, env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: { ...process.env, ...env }, timeout: 45_000 }, (error, stdout, stderr) => {
      resolve({ exitCode: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('admin CLI process', () => {
  const env = useTestEnvironment();
  const cli = (args: string[], extraEnv: Record<string, string | undefined> = {}) =>
    spawn(process.execPath, [tsxCli, 'src/main.ts', ...args], adminDir, { DATABASE_URL: env.database.url, ...extraEnv });

  it('prints one JSON object on stdout, nothing on stderr, and exits 0 on success', async () => {
    const run = await cli(['account:create', '--email', 'cli@example.com', '--plan', 'pro']);
    expect(run).toMatchObject({ exitCode: 0, stderr: '' });
    expect(run.stdout.endsWith('\n')).toBe(true);
    const output = JSON.parse(run.stdout) as { account_id: string; api_key: string };
    expect(await authenticateApiKey(env.database.db.prisma, output.api_key)).toMatchObject({ userId: output.account_id });
  });

  it('prints the error JSON on stderr, nothing on stdout, and exits 1 for an unknown account', async () => {
    const run = await cli(['account:plan', '--account', 'usr_missing', '--plan', 'pro']);
    expect(run).toMatchObject({ exitCode: 1, stdout: '' });
    expect(JSON.parse(run.stderr)).toEqual({ error: { code: 'not_found', message: 'account usr_missing not found' } });
  });

  it('exits 1 with invalid_request naming an unknown flag', async () => {
    const run = await cli(['plan:set', '--plan', 'pro', '--hashtag', '5']);
    expect(run).toMatchObject({ exitCode: 1, stdout: '' });
    expect(JSON.parse(run.stderr)).toMatchObject({ error: { code: 'invalid_request', message: expect.stringMatching(/^unknown flag --hashtag for plan:set/) } });
  });

  it('exits 1 with one line of internal_error and no stack trace when the database cannot be reached', async () => {
    const run = await cli(['plan:list'], { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/hashwatch' });
    expect(run).toMatchObject({ exitCode: 1, stdout: '' });
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(run.stderr)).toEqual({
      error: { code: 'internal_error', message: "database unavailable: Can't reach database server at 127.0.0.1:1" },
    });
  });

  it('exits 1 naming the variable when the environment is invalid', async () => {
    const run = await cli(['plan:list'], { DATABASE_URL: 'mysql://localhost/hashwatch' });
    expect(run).toMatchObject({ exitCode: 1, stdout: '' });
    expect(JSON.parse(run.stderr)).toMatchObject({ error: { code: 'internal_error', message: expect.stringMatching(/^invalid environment: DATABASE_URL/) } });
  });

  it('runs through the workspace admin script without a build, with only the JSON on stdout', async () => {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const run = await spawn(npm, ['run', '--silent', 'admin', '-w', '@hashwatch/admin', '--', 'plan:list'], repoDir, { DATABASE_URL: env.database.url });
    expect(run).toMatchObject({ exitCode: 0 });
    expect(JSON.parse(run.stdout)).toMatchObject({ data: [expect.objectContaining({ id: 'starter' }), expect.anything(), expect.anything()] });
  });

  describe('with SMTP_URL', () => {
    let receiver: MailReceiver;
    beforeAll(async () => {
      receiver = await startMailReceiver();
    });
    afterAll(() => receiver.close());

    it('mails the account of a change an operator made (2FA reset, key), and still only prints its JSON', async () => {
      const created = JSON.parse((await cli(['account:create', '--email', 'mailed@example.com', '--plan', 'pro'])).stdout) as { account_id: string };
      const smtp = { SMTP_URL: receiver.url, PUBLIC_URL: 'https://watch.example.com' };
      const reset = await cli(['account:2fa-reset', '--account', created.account_id], smtp);
      expect(reset).toMatchObject({ exitCode: 0, stderr: '' });
      expect(JSON.parse(reset.stdout)).toEqual({ account_id: created.account_id, two_factor_enabled: false });
      expect((await cli(['apikey:regenerate', '--account', created.account_id], smtp)).exitCode).toBe(0);
      await waitFor(async () => receiver.mails.length >= 2, 10_000, 'two security mails');
      expect(receiver.mails.map((mail) => [mail.to, mail.subject])).toEqual([
        [['mailed@example.com'], 'Two-factor authentication was turned off for your Hashwatch account'],
        [['mailed@example.com'], 'Your Hashwatch API key was regenerated'],
      ]);
      for (const mail of receiver.mails) {
        expect(mail.text).toContain('An operator of this Hashwatch made this change.');
        expect(mail.text).toContain('https://watch.example.com/forgot-password');
      }
    }, 120_000);

    it('still succeeds when the mail cannot be sent, with one warning line on stderr', async () => {
      const created = JSON.parse((await cli(['account:create', '--email', 'unmailed@example.com', '--plan', 'pro'])).stdout) as { account_id: string };
      const run = await cli(['account:2fa-reset', '--account', created.account_id], { SMTP_URL: 'smtp://127.0.0.1:1' });
      expect(run.exitCode).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ account_id: created.account_id, two_factor_enabled: false });
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(run.stderr)).toEqual({ warning: expect.stringMatching(/^the mail telling the account of this change was not sent/) });
    });
  });
});
