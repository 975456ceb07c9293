import { z } from 'zod';
import { transaction } from '@hashwatch/db';
import { raiseNotice, resolveNotice, type NoticeCondition } from '@hashwatch/notices';
import { verifyStandardSignature, waitFor, WebhookReceiver } from '@hashwatch/testing';
import { Suite } from './harness/suite';

const noticeSchema = z.object({
  id: z.string(),
  kind: z.string(),
  state: z.enum(['open', 'resolved']),
  source: z.string().nullable(),
  channel_id: z.string().nullable(),
  message: z.string(),
  opened_at: z.string(),
  resolved_at: z.string().nullable(),
});
const noticeMessageSchema = z.strictObject({ type: z.literal('notice'), notice: noticeSchema, text: z.string() });
const discordSchema = z.object({ embeds: z.array(z.object({ title: z.string(), description: z.string(), color: z.number() })) });

/**
 * A system notice raised in the database (as the conditions of issue 16 raise them) reaches the account's Discord
 * channel and its json channel that opted in, once per state, through the built notifier; a json channel left at
 * its default never meets the new message shape; GET /v1/notices lists it.
 */
describe('system notices through the built apps', () => {
  let suite: Suite | undefined;
  const receivers = { discord: new WebhookReceiver(), optedIn: new WebhookReceiver(), byDefault: new WebhookReceiver() };

  afterAll(async () => {
    await Promise.allSettled(Object.values(receivers).map((receiver) => receiver.close()));
    await suite?.stop();
  });

  it('sends the opening and the resolution to Discord and to the json channel that opted in, and nothing to a json channel by default', async () => {
    suite = await Suite.start();
    const running = suite;
    await Promise.all(Object.values(receivers).map((receiver) => receiver.start()));
    const saved = z
      .object({ webhooks: z.array(z.object({ id: z.string(), notices: z.boolean(), signing_secret: z.string() })) })
      .parse(
        await running.gateway.call('PUT', '/notifications', {
          webhooks: [
            { url: receivers.discord.url, format: 'discord' },
            { url: receivers.optedIn.url, format: 'json', notices: true },
            { url: receivers.byDefault.url, format: 'json' },
          ],
          bot: null,
        }),
      ).webhooks;
    expect(saved.map((webhook) => webhook.notices)).toEqual([true, true, false]);
    const optedInSecret = saved[1]!.signing_secret;

    const condition: NoticeCondition = { userId: running.accountId, kind: 'source_failing', source: '#e2enotice' };
    const opened = await transaction(running.pool, (client) => raiseNotice(client, condition, { message: 'X refuses the query of #e2enotice: check it under Tracks.' }));
    expect(opened).not.toBeNull();
    await waitFor(() => receivers.discord.accepted().length >= 1 && receivers.optedIn.accepted().length >= 1, 30_000, 'the notice on Discord and on the opted-in json channel');

    const resolved = await transaction(running.pool, (client) => resolveNotice(client, condition));
    expect(resolved?.id).toBe(opened!.id);
    await waitFor(() => receivers.discord.accepted().length >= 2 && receivers.optedIn.accepted().length >= 2, 30_000, 'the resolution on both');
    // Time for a repeat to show, were there one.
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    expect(receivers.byDefault.requests).toEqual([]);
    expect(receivers.discord.requests).toHaveLength(2);
    expect(receivers.optedIn.requests).toHaveLength(2);

    const [openEmbed, resolvedEmbed] = receivers.discord.requests.map((request) => discordSchema.parse(JSON.parse(request.body)).embeds[0]!);
    expect(openEmbed).toMatchObject({ title: '⚠ Hashwatch notice: source failing', color: 0xffad1f });
    expect(openEmbed!.description).toContain('Source: #e2enotice');
    expect(resolvedEmbed).toMatchObject({ title: '✅ Resolved: source failing', color: 0x17bf63 });

    const [openJson, resolvedJson] = receivers.optedIn.requests;
    expect([openJson!.webhookId, resolvedJson!.webhookId]).toEqual([`${opened!.id}:open`, `${opened!.id}:resolved`]);
    expect(verifyStandardSignature(optedInSecret, openJson!) && verifyStandardSignature(optedInSecret, resolvedJson!)).toBe(true);
    const openBody = noticeMessageSchema.parse(JSON.parse(openJson!.body));
    expect(openBody.notice).toEqual({
      id: opened!.id,
      kind: 'source_failing',
      state: 'open',
      source: '#e2enotice',
      channel_id: null,
      message: 'X refuses the query of #e2enotice: check it under Tracks.',
      opened_at: opened!.openedAt.toISOString(),
      resolved_at: null,
    });
    expect(noticeMessageSchema.parse(JSON.parse(resolvedJson!.body)).notice).toMatchObject({ state: 'resolved', resolved_at: resolved!.resolvedAt!.toISOString() });

    const listed = z.object({ data: z.array(noticeSchema), next_cursor: z.null() }).parse(await running.gateway.call('GET', '/notices'));
    expect(listed.data).toEqual([{ ...openBody.notice, state: 'resolved', resolved_at: resolved!.resolvedAt!.toISOString() }]);
    // A notice is no alert: the period's alert count is untouched.
    const usage = z.object({ alerts_used: z.number() }).passthrough().parse(await running.gateway.call('GET', '/usage'));
    expect(usage.alerts_used).toBe(0);
  });
});
