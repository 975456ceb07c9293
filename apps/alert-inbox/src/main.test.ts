import path from 'node:path';
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

  it('serves the alerts it was sent and exits 0 on SIGTERM', async () => {
    const inbox = processes.start({ env: { ALERT_INBOX_PORT: '0', LOG_LEVEL: 'info' } });
    const { url } = JSON.parse(await inbox.line('"alert inbox listening"')) as { url: string };
    const sent = await fetch(`${url}/hook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'hashtag', text: 'gm #btc' }) });
    expect(sent.status).toBeLessThan(300);
    const listed = (await (await fetch(`${url}/alerts`)).json()) as { data: unknown[] };
    expect(listed.data).toHaveLength(1);
    inbox.signal('SIGTERM');
    expect(await inbox.exit).toBe(0);
  });
});
