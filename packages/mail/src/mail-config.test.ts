import { configSchema, loadConfig } from '@hashwatch/config';
import { mailConfig } from './mail-config';

const schema = configSchema.extend(mailConfig);

describe('mailConfig', () => {
  it('leaves SMTP_URL unset and sends from Hashwatch <no-reply@localhost> by default', () => {
    const config = loadConfig(schema, {});
    expect(config.SMTP_URL).toBeUndefined();
    expect(config.MAIL_FROM).toBe('Hashwatch <no-reply@localhost>');
  });

  it('takes smtp:// and smtps:// URLs and a From address with or without a name', () => {
    expect(loadConfig(schema, { SMTP_URL: 'smtp://u:p@mail.example.com:587' }).SMTP_URL).toBe('smtp://u:p@mail.example.com:587');
    expect(loadConfig(schema, { SMTP_URL: 'smtps://mail.example.com' }).SMTP_URL).toBe('smtps://mail.example.com');
    expect(loadConfig(schema, { MAIL_FROM: 'alerts@example.com' }).MAIL_FROM).toBe('alerts@example.com');
    expect(loadConfig(schema, { MAIL_FROM: 'Example Alerts <alerts@example.com>' }).MAIL_FROM).toBe('Example Alerts <alerts@example.com>');
  });

  it('names SMTP_URL, without its password, when it is not an smtp URL', () => {
    expect(() => loadConfig(schema, { SMTP_URL: 'http://u:hunter2@mail.example.com' })).toThrow(/^invalid environment: SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL$/);
    expect(() => loadConfig(schema, { SMTP_URL: 'not a url :hunter2' })).toThrow(/^invalid environment: SMTP_URL /);
    expect(() => loadConfig(schema, { SMTP_URL: 'not a url :hunter2' })).not.toThrow(/hunter2/);
  });

  it('names MAIL_FROM when it is not an address', () => {
    expect(() => loadConfig(schema, { MAIL_FROM: 'Hashwatch' })).toThrow(/^invalid environment: MAIL_FROM must be an address or Name <address>$/);
    expect(() => loadConfig(schema, { MAIL_FROM: 'a@b.test\r\nBcc: x@y.test' })).toThrow(/MAIL_FROM/);
  });
});
