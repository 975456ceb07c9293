import { createHmac } from 'node:crypto';
import { startReceiver, verifyStandardSignature, WebhookReceiver } from './webhook-receiver';

const SECRET = `whsec_${Buffer.from('a key of thirty-two bytes, exact').toString('base64')}`;

function signed(id: string, body: string, secret = SECRET): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

const alert = (id: string) => JSON.stringify({ type: 'post', text: `post ${id}`, post: { id } });

describe('startReceiver', () => {
  it('answers with the scripted replies first, then its protocol, and counts only 2xx as accepted', async () => {
    const receiver = await startReceiver(() => ({ status: 204 }));
    try {
      receiver.script({ status: 429, headers: { 'retry-after': '1' } });
      const first = await fetch(`${receiver.origin}/a`, { method: 'POST', body: alert('1') });
      const second = await fetch(`${receiver.origin}/a`, { method: 'POST', headers: signed('msg_1', alert('1')), body: alert('1') });
      expect([first.status, first.headers.get('retry-after'), second.status]).toEqual([429, '1', 204]);
      await receiver.waitForAccepted(1);
      expect(receiver.received.map((request) => [request.status, request.webhookId, request.itemId])).toEqual([
        [429, null, '1'],
        [204, 'msg_1', '1'],
      ]);
      expect(receiver.accepted).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('answers after a reply’s delay, and notes how many requests it held at each arrival and when each was answered', async () => {
    const receiver = await startReceiver((request) => ({ status: 204, delayMs: request.path === '/slow' ? 300 : 0 }));
    try {
      const started = Date.now();
      const slow = fetch(`${receiver.origin}/slow`, { method: 'POST', body: '{}' });
      await receiver.waitForReceived(1);
      const quick = await fetch(`${receiver.origin}/quick`, { method: 'POST', body: '{}' });
      expect(quick.status).toBe(204);
      expect((await slow).status).toBe(204);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      // The quick one arrived while the slow one was held: two in flight; answered first.
      expect(receiver.received.map((request) => [request.path, request.inFlight])).toEqual([['/slow', 1], ['/quick', 2]]);
      const [slowRequest, quickRequest] = receiver.received;
      expect(slowRequest!.answeredAt - slowRequest!.at).toBeGreaterThanOrEqual(299);
      expect(quickRequest!.answeredAt).toBeLessThan(slowRequest!.answeredAt);
    } finally {
      await receiver.close();
    }
  });

  it('holds a request open until it is closed', async () => {
    const receiver = await startReceiver(() => 'hold');
    const pending = fetch(receiver.origin, { method: 'POST', body: '{}' }).then(
      () => 'answered',
      () => 'cut off',
    );
    await receiver.waitForReceived(1);
    expect(receiver.received[0]?.status).toBe(0);
    await receiver.close();
    await expect(pending).resolves.toBe('cut off');
  });
});

describe('verifyStandardSignature', () => {
  it('accepts the Standard Webhooks signature of the exact body and refuses another secret or a changed body', async () => {
    const receiver = await startReceiver(() => ({ status: 204 }));
    try {
      await fetch(receiver.origin, { method: 'POST', headers: signed('msg_2', alert('2')), body: alert('2') });
      await fetch(receiver.origin, { method: 'POST', headers: signed('msg_3', alert('3')), body: alert('4') });
      await receiver.waitForReceived(2);
      const [good, tampered] = receiver.received;
      expect(verifyStandardSignature(SECRET, good!)).toBe(true);
      expect(verifyStandardSignature(`whsec_${Buffer.from('another key').toString('base64')}`, good!)).toBe(false);
      expect(verifyStandardSignature(SECRET, tampered!)).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});

describe('WebhookReceiver', () => {
  it('answers 500 until failUntil passes, then 204, and gives the first accepted arrival per item', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hook$/);
      receiver.failUntil(Date.now() + 60_000);
      const refused = await fetch(receiver.url, { method: 'POST', body: alert('5') });
      receiver.failUntil(0);
      const accepted = await fetch(receiver.url, { method: 'POST', body: alert('5') });
      await fetch(receiver.url, { method: 'POST', body: alert('5') });
      expect([refused.status, await refused.text(), accepted.status]).toEqual([500, 'receiver told to fail', 204]);
      expect(receiver.requests.map((request) => request.status)).toEqual([500, 204, 204]);
      expect(receiver.accepted()).toHaveLength(2);
      expect([...receiver.firstArrivals()]).toEqual([['5', receiver.requests[1]!.at]]);
    } finally {
      await receiver.close();
    }
  });
});
