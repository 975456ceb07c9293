import { createTransport } from 'nodemailer';
import { generateSigningSecret, signWebhook } from '@hashwatch/channels';
import { createLogger } from '@hashwatch/logger';
import { createMailer, MailError, type MailMessage } from '@hashwatch/mail';
import Transport from 'winston-transport';
import { createAlertInbox, type AlertInbox } from './alert-inbox';

class Capture extends Transport {
  lines: Record<string, unknown>[] = [];
  override log(info: Record<string, unknown>, next: () => void): void {
    this.lines.push(info);
    next();
  }
}

const alertBody = (text: string) =>
  JSON.stringify({
    type: 'post',
    post: { id: 'post_1', type: 'hashtag', source: '#btc', author: '@alice', author_name: 'Alice', text, url: 'https://x.com/alice/status/1' },
    text,
  });

describe('alert inbox', () => {
  let inbox: AlertInbox;
  let url: string;
  let capture: Capture;

  async function start(secret?: string, capacity?: number) {
    capture = new Capture();
    inbox = createAlertInbox({ logger: createLogger('alert-inbox', { transports: [capture] }), ...(secret ? { secret } : {}), ...(capacity ? { capacity } : {}) });
    ({ url } = await inbox.listen(0));
  }
  afterEach(async () => {
    await inbox.close();
  });

  it('accepts a json alert, logs one readable line, and lists it on the page and at /alerts', async () => {
    await start();
    const res = await fetch(`${url}/hook`, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' }, body: alertBody('BTC <b>100k</b>') });

    expect(res.status).toBe(204);
    expect(capture.lines).toContainEqual(expect.objectContaining({ message: 'alert received', alert: '#btc @alice: BTC <b>100k</b> https://x.com/alice/status/1', webhookId: 'msg_1' }));
    const listed = (await (await fetch(`${url}/alerts`)).json()) as { data: { summary: string; verified: unknown }[] };
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]!.verified).toBeNull();
    const html = await (await fetch(url)).text();
    expect(html).toContain('http-equiv="refresh"');
    // Post text is escaped on the page.
    expect(html).toContain('BTC &lt;b&gt;100k&lt;/b&gt;');
    expect(html).not.toContain('<b>100k</b>');
  });

  it('verifies Standard Webhooks signatures when ALERT_INBOX_SECRET is set, and refuses a bad one with 401', async () => {
    const secret = generateSigningSecret();
    await start(secret);
    const body = alertBody('signed');
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = (signature: string) => ({ 'content-type': 'application/json', 'webhook-id': 'msg_2', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature });

    const good = await fetch(`${url}/hook`, { method: 'POST', headers: headers(signWebhook(secret, 'msg_2', timestamp, body)), body });
    const bad = await fetch(`${url}/hook`, { method: 'POST', headers: headers(signWebhook(generateSigningSecret(), 'msg_2', timestamp, body)), body });

    expect(good.status).toBe(204);
    expect(bad.status).toBe(401);
    expect(inbox.alerts.map((alert) => alert.verified)).toEqual([true]);
  });

  it('plays the Telegram Bot API sendMessage, so a demo bot channel can point at it', async () => {
    await start();
    const res = await fetch(`${url}/bot123:abc/sendMessage`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ chat_id: '42', text: 'hello' }) });

    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, result: { text: 'hello' } });
    expect(inbox.alerts[0]).toMatchObject({ format: 'telegram', summary: 'chat 42: hello' });
  });

  it('plays the Telegram Bot API sendPhoto, listing the caption as a Telegram message with its photo', async () => {
    await start();
    const photo = 'https://pbs.twimg.com/media/FlqYpJ8XwAAJ2aT.jpg';
    const body = JSON.stringify({ chat_id: '42', photo, caption: '<b>@alice</b> fish &amp; chips', parse_mode: 'HTML' });
    const res = await fetch(`${url}/bot123:abc/sendPhoto`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

    expect(res.status).toBe(200);
    const answer = (await res.json()) as { ok: boolean; result: Record<string, unknown> };
    expect(answer).toMatchObject({ ok: true, result: { chat: { id: '42' }, caption: '<b>@alice</b> fish &amp; chips' } });
    expect(answer.result.message_id).toEqual(expect.any(Number));
    expect(answer.result.photo).toEqual([expect.objectContaining({ file_id: expect.any(String) })]);
    expect(answer.result).not.toHaveProperty('text');
    expect(inbox.alerts[0]).toMatchObject({ format: 'telegram', type: 'photo', summary: `chat 42: [photo ${photo}] <b>@alice</b> fish &amp; chips` });
  });

  it('keeps only the newest alerts, up to its capacity', async () => {
    await start(undefined, 3);
    for (let i = 1; i <= 5; i += 1) {
      await fetch(`${url}/hook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: alertBody(`n${i}`) });
    }
    expect(inbox.alerts.map((alert) => alert.summary.split(': ')[1]?.split(' ')[0])).toEqual(['n5', 'n4', 'n3']);
  });

  it('answers 400 to a body that is not JSON', async () => {
    await start();
    const res = await fetch(`${url}/hook`, { method: 'POST', body: 'nope' });
    expect(res.status).toBe(400);
  });
});

describe('alert inbox mail', () => {
  let inbox: AlertInbox;
  let url: string;
  let smtpPort: number;
  let capture: Capture;

  async function start(options: { capacity?: number; maxMailBytes?: number } = {}) {
    capture = new Capture();
    inbox = createAlertInbox({ logger: createLogger('alert-inbox', { transports: [capture] }), ...options });
    ({ url } = await inbox.listen(0));
    ({ port: smtpPort } = await inbox.listenSmtp(0));
  }
  afterEach(async () => {
    await inbox.close();
  });

  /** Sends as the gateway will: through @hashwatch/mail's mailer. */
  async function mail(message: MailMessage): Promise<void> {
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${smtpPort}`, from: 'Hashwatch <no-reply@localhost>', logger: createLogger('mailer', { transports: [new Capture()] }) });
    try {
      await mailer.send(message);
    } finally {
      mailer.close();
    }
  }

  const listedMail = async () => ((await (await fetch(`${url}/mail`)).json()) as { data: Record<string, unknown>[] }).data;

  const RESET_LINK = 'http://localhost:3000/reset-password?token=tok_abc123&email=ann%40example.com';

  it('receives a password-reset mail over SMTP and lists it at /mail', async () => {
    await start();
    await mail({ to: 'ann@example.com', subject: 'Reset your Hashwatch password', text: `Open ${RESET_LINK} within 30 minutes.` });

    const listed = await listedMail();
    expect(listed).toEqual([
      {
        receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        from: 'Hashwatch <no-reply@localhost>',
        to: 'ann@example.com',
        subject: 'Reset your Hashwatch password',
        text: `Open ${RESET_LINK} within 30 minutes.\n`,
      },
    ]);
    expect(Object.keys(listed[0]!).sort()).toEqual(['from', 'receivedAt', 'subject', 'text', 'to']);
  });

  it('shows the mail on its page with the link clickable and everything else escaped', async () => {
    await start();
    await mail({ to: 'ann@example.com', subject: '<script>alert(1)</script> reset', text: `Hi <b>Ann</b>,\nopen ${RESET_LINK}.\nNot a link: javascript:alert(1)` });

    const html = await (await fetch(url)).text();
    expect(html).toContain('<h2 id="mail">Mail</h2>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; reset');
    expect(html).not.toContain('<script>');
    expect(html).toContain('Hi &lt;b&gt;Ann&lt;/b&gt;');
    const escapedLink = RESET_LINK.replace(/&/g, '&amp;');
    // The sentence's full stop stays outside the link.
    expect(html).toContain(`open <a href="${escapedLink}" target="_blank" rel="noopener noreferrer">${escapedLink}</a>.`);
    expect(html).not.toContain('href="javascript:');
  });

  it('reads quoted-printable and base64 text parts, and the text part of multipart/alternative', async () => {
    await start();
    const transport = createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    const text = `Grüße, Ann: ${'a long line that quoted-printable has to fold '.repeat(3)}${RESET_LINK}`;
    try {
      for (const textEncoding of ['quoted-printable', 'base64'] as const) {
        await transport.sendMail({ from: 'no-reply@localhost', to: 'ann@example.com', subject: `Ünïcode ${textEncoding}`, text, html: '<p>the html part</p>', textEncoding });
      }
      await transport.sendMail({ from: 'no-reply@localhost', to: 'ann@example.com', subject: 'html only', html: '<p>Only <b>html</b> here</p>' });
    } finally {
      transport.close();
    }

    const listed = await listedMail();
    expect(listed.map((entry) => [entry.subject, entry.text])).toEqual([
      ['html only', 'Only html here'],
      ['Ünïcode base64', text],
      ['Ünïcode quoted-printable', text],
    ]);
  });

  it('logs the sender, recipient and subject of a mail, never its body', async () => {
    await start();
    await mail({ to: 'ann@example.com', subject: 'Reset your Hashwatch password', text: `Open ${RESET_LINK}` });

    expect(capture.lines).toContainEqual(expect.objectContaining({ message: 'mail received', from: 'Hashwatch <no-reply@localhost>', to: 'ann@example.com', subject: 'Reset your Hashwatch password' }));
    expect(JSON.stringify(capture.lines)).not.toContain('tok_abc123');
  });

  it('refuses a mail over its size limit with 552 and keeps only the newest mails, up to its capacity', async () => {
    await start({ capacity: 2, maxMailBytes: 4096 });
    const refused = await mail({ to: 'ann@example.com', subject: 'too big', text: 'x'.repeat(8192) }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MailError);
    expect(refused).toMatchObject({ reason: 'rejected', responseCode: 552 });
    for (const n of [1, 2, 3]) await mail({ to: 'ann@example.com', subject: `n${n}`, text: 'hello' });

    expect((await listedMail()).map((entry) => entry.subject)).toEqual(['n3', 'n2']);
  });
});
