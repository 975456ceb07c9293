import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSender, jsonChannel, type OutgoingRequest, type SendResult } from './index';
import { fakeLookup, startLocalServer, type LocalServer } from './test-support/local-server';

const post = (url: string, body = '{"hello":"world"}'): OutgoingRequest => ({
  method: 'POST',
  url,
  headers: { 'content-type': 'application/json' },
  body,
});

function expectRefused(result: SendResult, pattern: RegExp) {
  expect(result).toEqual({ failure: 'refused', reason: expect.stringMatching(pattern) });
}

describe('createSender', () => {
  let receiver: LocalServer;
  let port: string;
  beforeAll(async () => {
    receiver = await startLocalServer(() => ({ status: 200, headers: { 'x-answer': 'yes' }, body: 'ok' }));
    port = new URL(receiver.origin).port;
  });
  afterAll(() => receiver.close());

  describe('with private networks refused (production)', () => {
    const sender = createSender({
      allowPrivateNetworks: false,
      timeoutMs: 2000,
      lookup: fakeLookup({
        'evil.example': '127.0.0.1',
        'evil6.example': '::1',
        'cgnat.example': '100.64.0.1',
        'mapped.example': '::ffff:127.0.0.1',
        'metadata6.example': 'fd00:ec2::254',
        'lan.example': '192.168.1.10',
      }),
    });
    afterAll(() => sender.close());

    it.each([
      ['127.0.0.1', 'https://127.0.0.1:PORT/hook'],
      ['::1', 'https://[::1]:PORT/hook'],
      ['169.254.169.254', 'https://169.254.169.254/latest/meta-data/'],
      ['10.0.0.1', 'https://10.0.0.1/hook'],
      ['::ffff:7f00:1', 'https://[::ffff:127.0.0.1]:PORT/hook'],
      ['0.0.0.0', 'https://0.0.0.0:PORT/hook'],
      ['224.0.0.1', 'https://224.0.0.1/hook'],
      ['fe80::1', 'https://[fe80::1]/hook'],
    ])('refuses the address %s given as a literal before connecting', async (address, url) => {
      const before = receiver.received.length;
      const result = await sender.send(post(url.replace('PORT', port)));
      expectRefused(result, /^the destination is not allowed/);
      expect(JSON.stringify(result)).not.toContain(address);
      expect(receiver.received).toHaveLength(before);
    });

    it.each([
      ['evil.example', '127.0.0.1'],
      ['evil6.example', '::1'],
      ['cgnat.example', '100.64.0.1'],
      ['mapped.example', '::ffff:127.0.0.1'],
      ['metadata6.example', 'fd00:ec2::254'],
      ['lan.example', '192.168.1.10'],
    ])('refuses %s because DNS resolves it to %s', async (host, address) => {
      const before = receiver.received.length;
      const result = await sender.send(post(`https://${host}:${port}/hook`));
      expectRefused(result, /^the destination is not allowed/);
      expect(JSON.stringify(result)).not.toContain(address);
      expect(receiver.received).toHaveLength(before);
    });

    it('refuses localhost as resolved by the system resolver', async () => {
      const system = createSender({ allowPrivateNetworks: false, timeoutMs: 2000 });
      expectRefused(await system.send(post(`https://localhost:${port}/hook`)), /destination is not allowed/);
      system.close();
    });

    it('refuses http: addresses', async () => {
      expectRefused(await sender.send(post('http://example.com/hook')), /^http: destinations are refused; use an https: address$/);
    });

    it('answers a malformed URL with a refusal instead of throwing', async () => {
      expectRefused(await sender.send(post('not a url')), /not a valid URL/);
    });

    it('reports a name that does not resolve as a retryable network failure', async () => {
      expect(await sender.send(post('https://nowhere.example/hook'))).toEqual({
        failure: 'network',
        reason: 'the destination host name does not resolve',
      });
    });
  });

  describe('with private networks allowed (development and tests)', () => {
    const sender = createSender({
      allowPrivateNetworks: true,
      timeoutMs: 500,
      lookup: fakeLookup({ 'receiver.example': '127.0.0.1', 'metadata.example': '169.254.169.254' }),
    });
    afterAll(() => sender.close());

    it('delivers to a local receiver and returns status, lower-case headers and body', async () => {
      const result = await sender.send(post(`${receiver.origin}/hook`));
      expect(result).toMatchObject({ status: 200, body: 'ok', headers: { 'x-answer': 'yes' } });
      expect(receiver.received.at(-1)).toMatchObject({ method: 'POST', path: '/hook', body: '{"hello":"world"}' });
      expect(receiver.received.at(-1)?.headers['user-agent']).toBe('Hashwatch-Alerts/1.0');
    });

    it('uses the injected resolver for host names', async () => {
      expect(await sender.send(post(`http://receiver.example:${port}/hook`))).toMatchObject({ status: 200 });
    });

    it('sends the body byte for byte, whitespace included', async () => {
      await sender.send(post(`${receiver.origin}/raw`, ' {"a": 1}\n'));
      expect(receiver.received.at(-1)?.body).toBe(' {"a": 1}\n');
    });

    it('still refuses cloud metadata addresses, as a literal or through DNS', async () => {
      expectRefused(await sender.send(post('http://169.254.169.254/latest/meta-data/')), /destination is not allowed/);
      expectRefused(await sender.send(post('http://metadata.example/latest/meta-data/')), /destination is not allowed/);
      expectRefused(await sender.send(post('http://[fd00:ec2::254]/latest/meta-data/')), /destination is not allowed/);
    });

    it('never names the address a host name resolved to in a refusal', async () => {
      const result = await sender.send(post('http://metadata.example/latest/meta-data/'));
      expectRefused(result, /^the destination is not allowed/);
      expect(JSON.stringify(result)).not.toMatch(/169\.254|a9fe/);
    });

    it('does not follow a redirect and the adapters treat it as a permanent failure', async () => {
      const target = await startLocalServer(() => ({ status: 200 }));
      const redirecting = await startLocalServer(() => ({ status: 302, headers: { location: `${target.origin}/internal` } }));
      try {
        const result = await sender.send(post(`${redirecting.origin}/hook`));
        expect(result).toMatchObject({ status: 302, headers: { location: `${target.origin}/internal` } });
        expect(target.received).toHaveLength(0);
        expect(jsonChannel.interpret(result)).toEqual({
          outcome: 'permanent',
          reason: 'the target answered 302 (redirect); redirects are not followed, so set the channel to the final address',
        });
      } finally {
        await Promise.all([target.close(), redirecting.close()]);
      }
    });

    it('gives up on a target that never answers once the deadline passes', async () => {
      const silent = await startLocalServer(() => new Promise(() => undefined));
      const started = Date.now();
      try {
        expect(await sender.send(post(`${silent.origin}/hook`))).toEqual({ failure: 'timeout', reason: 'no complete answer within 500 ms' });
        expect(Date.now() - started).toBeLessThan(2000);
      } finally {
        await silent.close();
      }
    });

    it('gives up on an answer whose body trickles in past the deadline', async () => {
      const trickle = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(timer));
      });
      await new Promise<void>((resolve) => trickle.listen(0, '127.0.0.1', resolve));
      try {
        const { port: trickling } = trickle.address() as AddressInfo;
        expect(await sender.send(post(`http://127.0.0.1:${trickling}/hook`))).toEqual({ failure: 'timeout', reason: 'no complete answer within 500 ms' });
      } finally {
        trickle.closeAllConnections();
        await new Promise((resolve) => trickle.close(resolve));
      }
    });

    it('gives up on a target that takes the connection and sends no headers once the first-byte deadline passes', async () => {
      const quick = createSender({ allowPrivateNetworks: true, timeoutMs: 5_000, firstByteTimeoutMs: 300 });
      const silent = await startLocalServer(() => new Promise(() => undefined));
      const started = Date.now();
      try {
        expect(await quick.send(post(`${silent.origin}/hook`))).toEqual({ failure: 'timeout', reason: 'no answer within 300 ms' });
        expect(Date.now() - started).toBeLessThan(1_500);
      } finally {
        quick.close();
        await silent.close();
      }
    });

    it('reads a body past the first-byte deadline when the headers came in time, within the whole deadline', async () => {
      const quick = createSender({ allowPrivateNetworks: true, timeoutMs: 5_000, firstByteTimeoutMs: 300 });
      const slowBody = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('a');
        const timer = setTimeout(() => res.end('b'), 600);
        res.on('close', () => clearTimeout(timer));
      });
      await new Promise<void>((resolve) => slowBody.listen(0, '127.0.0.1', resolve));
      try {
        const { port: slow } = slowBody.address() as AddressInfo;
        expect(await quick.send(post(`http://127.0.0.1:${slow}/hook`))).toMatchObject({ status: 200, body: 'ab' });
      } finally {
        quick.close();
        slowBody.closeAllConnections();
        await new Promise((resolve) => slowBody.close(resolve));
      }
    });

    it('reads at most 64 KiB of an answer and keeps its status', async () => {
      const huge = await startLocalServer(() => ({ status: 400, body: 'e'.repeat(1024 * 1024) }));
      try {
        const result = await sender.send(post(`${huge.origin}/hook`));
        expect(result).toMatchObject({ status: 400 });
        expect('body' in result && result.body.length).toBe(64 * 1024);
      } finally {
        await huge.close();
      }
    });

    it('ignores proxies configured in the environment', async () => {
      const proxy = await startLocalServer(() => ({ status: 502 }));
      const saved = process.env.HTTP_PROXY;
      process.env.HTTP_PROXY = proxy.origin;
      try {
        expect(await sender.send(post(`http://receiver.example:${port}/hook`))).toMatchObject({ status: 200 });
        expect(proxy.received).toHaveLength(0);
      } finally {
        if (saved === undefined) delete process.env.HTTP_PROXY;
        else process.env.HTTP_PROXY = saved;
        await proxy.close();
      }
    });
  });
});
