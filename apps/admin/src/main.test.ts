import { execFile } from 'node:child_process';
import path from 'node:path';
import { authenticateApiKey } from '@hashwatch/accounts';
import { useTestEnvironment } from '@hashwatch/testing';

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
});
