import path from 'node:path';
import { createLogger } from '@hashwatch/logger';
import { createMailer } from '@hashwatch/mail';
import { useMainProcesses } from '@hashwatch/testing';

// Each case starts a real process that compiles TypeScript on the fly: seconds, more on a busy machine.
jest.setTimeout(90_000);

describe('alert inbox process', () => {
  const processes = useMainProcesses(path.join(__dirname, 'main.ts'));

  it('exits 1 with one line naming ALERT_INBOX_SECRET when it is not a signing secret', async () => {
    const inbox = processes.start({ env: { ALERT_INBOX_SECRET: 'not-a-secret' } });
    expect(await inbox.exit).toBe(1);
    expect(inbox.output().trim()).toMatch(/^invalid environment: ALERT_INBOX_SECRET [^\n]+$/);
  });

  it('exits 1 with one line naming ALERT_INBOX_SMTP_PORT when it is not a port', async () => {
    const inbox = processes.start({ env: { ALERT_INBOX_PORT: '0', ALERT_INBOX_SMTP_PORT: 'smtp' } });
    expect(await inbox.exit).toBe(1);
    expect(inbox.output().trim()).toMatch(/^invalid environment: ALERT_INBOX_SMTP_PORT [^\n]+$/);
  });

  it('serves the alerts and the mail it was sent and exits 0 on SIGTERM', async () => {
    const inbox = processes.start({ env: { ALERT_INBOX_PORT: '0', ALERT_INBOX_SMTP_PORT: '0', LOG_LEVEL: 'info' } });
    const { url, smtp } = JSON.parse(await inbox.line('"alert inbox listening"')) as { url: string; smtp: string };
    const sent = await fetch(`${url}/hook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'hashtag', text: 'gm #btc' }) });
    expect(sent.status).toBeLessThan(300);
    const listed = (await (await fetch(`${url}/alerts`)).json()) as { data: unknown[] };
    expect(listed.data).toHaveLength(1);

    expect(smtp).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    const mailer = createMailer({ smtpUrl: smtp, from: 'Hashwatch <no-reply@localhost>', logger: createLogger('mailer', { level: 'error' }) });
    await mailer.send({ to: 'ann@example.com', subject: 'Reset your Hashwatch password', text: 'Open http://localhost:3000/reset' });
    mailer.close();
    const mail = (await (await fetch(`${url}/mail`)).json()) as { data: { subject: string }[] };
    expect(mail.data.map((entry) => entry.subject)).toEqual(['Reset your Hashwatch password']);

    inbox.signal('SIGTERM');
    expect(await inbox.exit).toBe(0);
  });
});
