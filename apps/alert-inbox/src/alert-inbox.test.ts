import { generateSigningSecret, signWebhook } from '@hashwatch/channels';
import { createLogger } from '@hashwatch/logger';
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
