import { createCipher, generateSecretsKey } from '@hashwatch/secrets';
import { ChannelConfigError, MissingSecretError, unsealChannel, UnreadableSecretError, type SealedChannel } from './index';

const cipher = createCipher(generateSecretsKey());
const otherServer = createCipher(generateSecretsKey());
const SIGNING_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BOT_TOKEN = '123456789:AAE-sample_token';

const webhook = (overrides: Partial<SealedChannel> = {}): SealedChannel => ({
  kind: 'webhook',
  url: 'https://example.com/hooks/hashwatch',
  format: 'auto',
  bot_name: 'Crypto desk',
  template: '{source}: {url}',
  signing_secret_enc: cipher.encrypt(SIGNING_SECRET),
  bot_token_enc: null,
  chat_id: null,
  ...overrides,
});

const bot = (overrides: Partial<SealedChannel> = {}): SealedChannel => ({
  kind: 'bot',
  url: null,
  format: 'auto',
  bot_name: 'Hashwatch',
  template: '',
  signing_secret_enc: null,
  bot_token_enc: cipher.encrypt(BOT_TOKEN),
  chat_id: '-1001234567890',
  ...overrides,
});

describe('unsealChannel', () => {
  it.each([
    ['Discord', 'discord', 'https://discord.com/api/webhooks/1/token', 'auto'],
    ['Slack', 'slack', 'https://hooks.slack.com/services/T/B/x', 'slack'],
  ] as const)('gives a %s webhook its url, bot name and template, and no secret', (_name, kind, url, format) => {
    expect(unsealChannel(webhook({ url, format }), { cipher })).toEqual({ kind, url, botName: 'Crypto desk', template: '{source}: {url}' });
  });

  it('gives a json webhook its unsealed signing secret and no bot name', () => {
    expect(unsealChannel(webhook(), { cipher })).toEqual({
      kind: 'json',
      url: 'https://example.com/hooks/hashwatch',
      template: '{source}: {url}',
      signingSecret: SIGNING_SECRET,
      maxPerSecond: null,
    });
    // A ceiling the receiver set comes with it.
    expect(unsealChannel({ ...webhook(), max_per_second: 40 }, { cipher })).toMatchObject({ kind: 'json', maxPerSecond: 40 });
  });

  it('gives the bot channel its unsealed token, chat id and Bot API address, and no bot name', () => {
    expect(unsealChannel(bot(), { cipher, telegramBaseUrl: 'http://127.0.0.1:9' })).toEqual({
      kind: 'telegram',
      template: '',
      botToken: BOT_TOKEN,
      chatId: '-1001234567890',
      telegramBaseUrl: 'http://127.0.0.1:9',
    });
    expect(unsealChannel(bot(), { cipher })).not.toHaveProperty('telegramBaseUrl');
  });

  it('refuses a json webhook without a signing secret, so it is never sent unsigned', () => {
    const unseal = () => unsealChannel(webhook({ signing_secret_enc: null }), { cipher });
    expect(unseal).toThrow(MissingSecretError);
    expect(unseal).toThrow(ChannelConfigError);
    expect(unseal).toThrow('no signing secret is stored for this channel');
  });

  it('refuses a bot channel without a token', () => {
    const unseal = () => unsealChannel(bot({ bot_token_enc: null }), { cipher });
    expect(unseal).toThrow(MissingSecretError);
    expect(unseal).toThrow('no bot token is stored for this channel');
  });

  it('maps a Discord webhook whose signing secret is missing or unreadable: its delivery does not use it', () => {
    for (const sealed of [null, otherServer.encrypt(SIGNING_SECRET)]) {
      expect(unsealChannel(webhook({ format: 'discord', signing_secret_enc: sealed }), { cipher })).toMatchObject({ kind: 'discord' });
    }
  });

  it('throws UnreadableSecretError, not a ChannelConfigError, for a secret sealed under another key', () => {
    const attempts = [
      [() => unsealChannel(webhook({ signing_secret_enc: otherServer.encrypt(SIGNING_SECRET) }), { cipher }), 'signing secret'],
      [() => unsealChannel(bot({ bot_token_enc: otherServer.encrypt(BOT_TOKEN) }), { cipher }), 'bot token'],
      [() => unsealChannel(bot({ bot_token_enc: 'v1.damaged' }), { cipher }), 'bot token'],
    ] as const;
    for (const [unseal, secret] of attempts) {
      let thrown: unknown;
      try {
        unseal();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UnreadableSecretError);
      expect(thrown).not.toBeInstanceOf(ChannelConfigError);
      expect(thrown).toMatchObject({ secret, message: `the ${secret} cannot be opened with this process's SECRETS_KEY (nor SECRETS_KEY_PREVIOUS)` });
    }
  });

  it('opens a secret sealed under the previous key during a rotation', () => {
    const previousKey = generateSecretsKey();
    const rotated = createCipher(generateSecretsKey(), previousKey);
    const row = webhook({ signing_secret_enc: createCipher(previousKey).encrypt(SIGNING_SECRET) });
    expect(unsealChannel(row, { cipher: rotated })).toMatchObject({ kind: 'json', signingSecret: SIGNING_SECRET });
  });
});
