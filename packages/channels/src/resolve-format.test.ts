import { channelKindOf, resolveFormat } from './resolve-format';

describe('resolveFormat', () => {
  it.each([
    ['https://discord.com/api/webhooks/1/abc', 'discord'],
    ['https://discordapp.com/api/webhooks/1/abc', 'discord'],
    ['https://canary.discord.com/api/webhooks/1/abc', 'discord'],
    ['https://hooks.slack.com/services/T/B/x', 'slack'],
    ['https://example.com/hooks/hashwatch', 'json'],
    ['https://discord.com.evil.example/api/webhooks/1/abc', 'json'],
    ['https://notdiscord.com/hook', 'json'],
    ['https://slack.com/services/T/B/x', 'json'],
    ['not a url', 'json'],
  ])('maps %s to %s when the format is auto', (url, kind) => {
    expect(resolveFormat('auto', url)).toBe(kind);
  });

  it('keeps an explicit format whatever the host', () => {
    expect(resolveFormat('json', 'https://discord.com/api/webhooks/1/abc')).toBe('json');
    expect(resolveFormat('slack', 'https://example.com/x')).toBe('slack');
  });
});

describe('channelKindOf', () => {
  it('sends the bot channel as Telegram and a webhook as its resolved format', () => {
    expect(channelKindOf({ kind: 'bot', format: 'auto', url: null })).toBe('telegram');
    expect(channelKindOf({ kind: 'webhook', format: 'auto', url: 'https://discord.com/api/webhooks/1/abc' })).toBe('discord');
    expect(channelKindOf({ kind: 'webhook', format: 'json', url: 'https://hooks.slack.com/services/T/B/x' })).toBe('json');
    expect(channelKindOf({ kind: 'webhook', format: 'auto', url: null })).toBe('json');
  });
});
