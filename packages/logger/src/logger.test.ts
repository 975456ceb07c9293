import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, redact } from './logger';

function capture(): { lines: string[]; transport: winston.transport } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk).trim());
      callback();
    },
  });
  return { lines, transport: new winston.transports.Stream({ stream }) };
}

describe('createLogger', () => {
  it('writes one JSON line with the service, message and fields', () => {
    const { lines, transport } = capture();
    const log = createLogger('gateway', { transports: [transport] });
    log.info('request done', { status: 200, durationMs: 3 });
    const entry = JSON.parse(lines[0] ?? '{}');
    expect(entry).toMatchObject({ service: 'gateway', message: 'request done', status: 200, level: 'info' });
    expect(entry.timestamp).toEqual(expect.any(String));
  });

  it('never writes an API key, token or secret, whatever field carries it', () => {
    const { lines, transport } = capture();
    const log = createLogger('gateway', { transports: [transport] });
    log.warn('oops', {
      authorization: 'Bearer hw_live_abcdefghijkl',
      apiKey: 'hw_live_secretvalue',
      nested: { botToken: '123:ABC', url: 'https://api.telegram.org/bot123456:AAbbCC_dd/sendMessage' },
      note: 'failed with key hw_live_zzzzzzzz and whsec_c2VjcmV0',
      dashboard: 'cookie hw_session=hws_abc-DEF_123 token hwl_login9 link /reset-password?token=hwr_reset-7 stripe sk_test_51Abc rk_live_9ZqXw',
      webhook: 'https://discord.com/api/webhooks/123/tok-en_secret',
    });
    const text = lines.join('\n');
    for (const secret of ['abcdefghijkl', 'secretvalue', '123:ABC', 'AAbbCC_dd', 'zzzzzzzz', 'c2VjcmV0', 'tok-en_secret', 'abc-DEF_123', 'login9', 'reset-7', '51Abc', '9ZqXw']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });

  it('drops an entry below the level before any format reads its fields, and follows a level change', () => {
    const { lines, transport } = capture();
    const log = createLogger('gateway', { level: 'warn', transports: [transport] });
    let read = 0;
    const fields = () => ({
      nested: {
        get value() {
          read += 1;
          return 'x';
        },
      },
    });
    log.info('skipped', fields());
    log.child({ job: 'j1' }).debug('skipped too', fields());
    expect(read).toBe(0);
    expect(lines).toEqual([]);
    log.warn('kept', fields());
    expect(read).toBe(1);
    log.level = 'info';
    log.info('kept too', fields());
    expect(lines.map((line) => JSON.parse(line).message)).toEqual(['kept', 'kept too']);
  });

  it('finds each credential form alone in a string, and leaves a string with none as it was', () => {
    const forms: [string, string][] = [
      ['sent Bearer abc.DEF-1', 'abc.DEF-1'],
      ['GET /bot123456:AA-bb_cc/getMe', 'AA-bb_cc'],
      ['key hw_live_k3y and', 'k3y'],
      ['key hw_test_t3st', 't3st'],
      ['signing whsec_c2Vj+cmV0=', 'c2Vj+cmV0'],
      ['session hws_s3ss10n', 's3ss10n'],
      ['login hwl_l0g1n', 'l0g1n'],
      ['reset hwr_r3s3t', 'r3s3t'],
      ['stripe sk_live_51Live', '51Live'],
      ['stripe rk_test_9Rest', '9Rest'],
      ['https://discordapp.com/api/v10/webhooks/42/d1sc-0rd_tok', 'd1sc-0rd_tok'],
      ['https://hooks.slack.com/services/T0/B0/sl4ck', 'sl4ck'],
    ];
    for (const [text, secret] of forms) expect(redact(text)).not.toContain(secret);
    const plain = 'GET /v1/posts 200 in 3.2 ms for usr_abc (hw_ is a prefix, Bearer-less)';
    expect(redact(plain)).toBe(plain);
  });

  it('keeps booleans such as two_factor_enabled readable', () => {
    expect(redact({ token_present: true, two_factor_enabled: false })).toEqual({ token_present: true, two_factor_enabled: false });
  });
});
