import { HashwatchError } from '@hashwatch/sdk';
import type { Schemas } from '../../api/client';
import { describeError } from '../../api/errors';
import { channelProblem, draftsOf, inputOf, newBot, newWebhook, noticesUnlessSwitched, type WebhookDraft } from './channel-draft';

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

const saved = (webhooks: Schemas['NotificationConfig']['webhooks'], bot: Schemas['NotificationConfig']['bot'] = null): Schemas['NotificationConfig'] => ({ webhooks, bot });
const channel = (id: string, url: string, notices: boolean, format: 'auto' | 'json' | 'discord' | 'slack' = 'auto') => ({
  id, url, format, bot_name: 'Hashwatch', hashtags: ['btc'], accounts: [], source_filter: 'all' as const, engagement_alerts: false,
  template: '', enabled: true, disabled_reason: null, notices, signing_secret: 'whsec_x', max_per_second: null,
});
const savedBot = (notices: boolean) => ({
  token_hint: '...wxyz', chat_id: '-100', hashtags: [], accounts: [], source_filter: 'all' as const, engagement_alerts: false,
  template: '', enabled: true, disabled_reason: null, notices,
});

describe('noticesUnlessSwitched', () => {
  it('is the platform’s default on a new channel: on for Discord and Slack (by format or, for auto, by address), off for JSON', () => {
    const at = (format: WebhookDraft['format'], url: string) => noticesUnlessSwitched({ ...newWebhook(), format, url });
    expect(at('auto', 'https://discord.com/api/webhooks/1/a')).toBe(true);
    expect(at('auto', 'https://ptb.discordapp.com/api/webhooks/1/a')).toBe(true);
    expect(at('auto', 'https://hooks.slack.com/services/T/B/x')).toBe(true);
    expect(at('auto', 'https://example.com/hook')).toBe(false);
    expect(at('auto', 'not a url')).toBe(false);
    expect(at('discord', 'https://example.com/hook')).toBe(true);
    expect(at('json', 'https://discord.com/api/webhooks/1/a')).toBe(false);
    expect(noticesUnlessSwitched(newBot())).toBe(true);
  });

  it('is the saved value while the platform keeps its default, and the new platform’s default once it does not', () => {
    const { webhooks: [off, json] } = draftsOf(saved([
      channel('wh_1', 'https://discord.com/api/webhooks/1/a', false),
      channel('wh_2', 'https://example.com/hook', true),
    ]));
    expect(noticesUnlessSwitched(off!)).toBe(false);
    expect(noticesUnlessSwitched({ ...off!, url: 'https://hooks.slack.com/services/T/B/x' })).toBe(false);
    expect(noticesUnlessSwitched({ ...off!, url: 'https://example.com/hook' })).toBe(false);
    expect(noticesUnlessSwitched(json!)).toBe(true);
    expect(noticesUnlessSwitched({ ...json!, format: 'json', url: 'https://example.org/other' })).toBe(true);
    expect(noticesUnlessSwitched({ ...json!, url: 'https://discord.com/api/webhooks/1/a' })).toBe(true);
    const on = draftsOf(saved([channel('wh_3', 'https://discord.com/api/webhooks/1/a', true)])).webhooks[0]!;
    expect(noticesUnlessSwitched({ ...on, url: 'https://example.com/hook' })).toBe(false);
    expect(noticesUnlessSwitched(draftsOf(saved([], savedBot(false))).bot!)).toBe(false);
  });
});

describe('inputOf', () => {
  it('leaves out the notices switch GET answered, so a save keeps the saved choice or the platform’s default', () => {
    const drafts = draftsOf(saved([channel('wh_1', 'https://discord.com/api/webhooks/1/a', true), channel('wh_2', 'https://example.com/hook', false)], savedBot(true)));
    expect(drafts.webhooks[0]).not.toHaveProperty('notices');
    const body = inputOf(drafts);
    expect(body.webhooks?.[0]).not.toHaveProperty('notices');
    expect(body.webhooks?.[1]).not.toHaveProperty('notices');
    expect(body.bot).not.toHaveProperty('notices');
    expect(body.webhooks?.[0]).not.toHaveProperty('saved_notices');
    expect(body.webhooks?.[0]).toMatchObject({ id: 'wh_1', url: 'https://discord.com/api/webhooks/1/a', hashtags: ['btc'] });
    const moved = inputOf({ ...drafts, webhooks: [{ ...drafts.webhooks[0]!, url: 'https://example.com/json' }] });
    expect(moved.webhooks?.[0]).not.toHaveProperty('notices');
  });

  it('sends the switch when this edit set it to something saving without it would not give', () => {
    const drafts = draftsOf(saved([channel('wh_1', 'https://discord.com/api/webhooks/1/a', true), channel('wh_2', 'https://example.com/hook', false)], savedBot(true)));
    const [discord, json] = drafts.webhooks;
    const body = inputOf({ webhooks: [{ ...discord!, notices: false }, { ...json!, notices: true }], bot: { ...drafts.bot!, notices: false } });
    expect(body.webhooks?.[0]).toMatchObject({ notices: false });
    expect(body.webhooks?.[1]).toMatchObject({ notices: true });
    expect(body.bot).toMatchObject({ notices: false });
    // Switched there and back: the same body as no switch at all, so the form is not "changed" and nothing is pinned.
    expect(inputOf({ webhooks: [{ ...discord!, notices: true }, json!], bot: drafts.bot })).toEqual(inputOf(drafts));
    // Re-pointed from Discord to JSON and switched on: kept on there, where the default would be off.
    expect(inputOf({ webhooks: [{ ...discord!, url: 'https://example.com/json', notices: true }], bot: null }).webhooks?.[0]).toMatchObject({ notices: true });
  });

  it('leaves the switch out of a new channel never switched, and sends it once switched from the default', () => {
    const body = inputOf({ webhooks: [{ ...newWebhook(), url: 'https://example.com/a' }, { ...newWebhook(), url: 'https://example.com/b', notices: true }], bot: null });
    expect(body.webhooks?.[0]).not.toHaveProperty('notices');
    expect(body.webhooks?.[1]).toMatchObject({ notices: true });
  });

  it('sends a json webhook’s max_per_second, and null once the webhook resolves to Discord or Slack, whose field is hidden', () => {
    const drafts = draftsOf(saved([{ ...channel('wh_1', 'https://example.com/hook', false), max_per_second: 25 }]));
    expect(inputOf(drafts).webhooks?.[0]).toMatchObject({ max_per_second: 25 });
    const toDiscord = { ...drafts.webhooks[0]!, url: 'https://discord.com/api/webhooks/1/a' };
    expect(inputOf({ webhooks: [toDiscord], bot: null }).webhooks?.[0]).toMatchObject({ max_per_second: null });
    expect(inputOf({ webhooks: [{ ...drafts.webhooks[0]!, format: 'slack' }], bot: null }).webhooks?.[0]).toMatchObject({ max_per_second: null });
    expect(inputOf({ webhooks: [{ ...newWebhook(), url: 'https://example.com/a' }], bot: null }).webhooks?.[0]).toMatchObject({ max_per_second: null });
  });

  it('sends the bot token only when one was typed', () => {
    const drafts = draftsOf(saved([], savedBot(true)));
    expect(inputOf(drafts).bot).not.toHaveProperty('token');
    expect(inputOf({ ...drafts, bot: { ...drafts.bot!, token: '123:abc' } }).bot).toMatchObject({ token: '123:abc', chat_id: '-100' });
  });
});
