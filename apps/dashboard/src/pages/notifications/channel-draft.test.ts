import { HashwatchError } from '@hashwatch/sdk';
import { describeError } from '../../api/errors';
import { channelProblem, inputOf, newWebhook, noticesByDefault } from './channel-draft';

const invalid = (message: string, field: string) => new HashwatchError({ status: 400, code: 'invalid_request', message, field });

describe('channelProblem', () => {
  it('places a webhook’s field error on that webhook (by index) and field', () => {
    expect(channelProblem(invalid('webhooks.1.url: Invalid URL', 'webhooks.1.url'), describeError)).toEqual({
      channel: { webhook: 1 }, field: 'url', message: 'Invalid URL',
    });
  });

  it('names the first field of a nested path (webhooks.0.hashtags.2)', () => {
    expect(channelProblem(invalid('webhooks.0.hashtags.2: Too long', 'webhooks.0.hashtags.2'), describeError)).toEqual({
      channel: { webhook: 0 }, field: 'hashtags', message: 'Too long',
    });
  });

  it('places a bot field error on the bot', () => {
    expect(channelProblem(invalid('bot.chat_id: Required', 'bot.chat_id'), describeError)).toEqual({ channel: 'bot', field: 'chat_id', message: 'Required' });
  });

  it('gives the whole form what belongs to no channel, in the describer’s words', () => {
    expect(channelProblem(invalid('webhooks: Too many', 'webhooks'), describeError)).toEqual({ channel: null, field: null, message: 'webhooks: Too many' });
    const limit = new HashwatchError({ status: 403, code: 'plan_limit_reached', message: 'the plan allows 1 webhook channel; this configuration has 2' });
    expect(channelProblem(limit, describeError)).toEqual({
      channel: null, field: null, message: 'the plan allows 1 webhook channel; this configuration has 2. Delete one, or change your plan in Billing.',
    });
    expect(channelProblem(new Error('offline'), () => 'described')).toEqual({ channel: null, field: null, message: 'described' });
  });
});

describe('noticesByDefault', () => {
  it('follows the API: on for Discord and Slack (by format or, for auto, by address), off for JSON', () => {
    expect(noticesByDefault({ format: 'auto', url: 'https://discord.com/api/webhooks/1/a' })).toBe(true);
    expect(noticesByDefault({ format: 'auto', url: 'https://ptb.discordapp.com/api/webhooks/1/a' })).toBe(true);
    expect(noticesByDefault({ format: 'auto', url: 'https://hooks.slack.com/services/T/B/x' })).toBe(true);
    expect(noticesByDefault({ format: 'auto', url: 'https://example.com/hook' })).toBe(false);
    expect(noticesByDefault({ format: 'auto', url: 'not a url' })).toBe(false);
    expect(noticesByDefault({ format: 'discord', url: 'https://example.com/hook' })).toBe(true);
    expect(noticesByDefault({ format: 'json', url: 'https://discord.com/api/webhooks/1/a' })).toBe(false);
  });
});

describe('inputOf', () => {
  it('sends a channel’s notices switch when it has one, and leaves it out of a new channel never switched', () => {
    const fresh = newWebhook();
    const body = inputOf({ webhooks: [{ ...fresh, url: 'https://example.com/a' }, { ...newWebhook(), url: 'https://example.com/b', notices: true }], bot: null });
    expect(body.webhooks?.[0]).not.toHaveProperty('notices');
    expect(body.webhooks?.[1]).toMatchObject({ notices: true });
  });
});
