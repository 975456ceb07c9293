import { useQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type Schemas } from '../api/client';
import { describeError } from '../api/errors';
import { useAccountTracks, useNotifications, useTracks, useUsage } from '../api/queries';
import { Done, ErrorNote, Loading } from '../components/Status';
import { UsageMeter } from '../components/UsageMeter';
import { BotFieldset } from './notifications/BotFieldset';
import { channelProblem, draftsOf, inputOf, newBot, newWebhook, type Drafts } from './notifications/channel-draft';
import { DeliveryLog } from './notifications/DeliveryLog';
import { WebhookFieldset } from './notifications/WebhookFieldset';

/** The newest post, for template previews. */
const useNewestPost = () => useQuery({ queryKey: ['newest-post'], queryFn: () => api.get('/v1/posts', { params: { query: { limit: 1 } } }) });

/** The drafts start from the configuration as first read; a later refetch does not overwrite what is being edited. */
function Editor({ saved }: { saved: Schemas['NotificationConfig'] }) {
  const queryClient = useQueryClient();
  const [drafts, setDrafts] = useState<Drafts>(() => draftsOf(saved));
  const [savedJson, setSavedJson] = useState(() => JSON.stringify(inputOf(draftsOf(saved))));
  const usage = useUsage();
  const tracks = useTracks();
  const accounts = useAccountTracks();
  const post = useNewestPost().data?.data[0];
  const save = useMutation({
    mutationFn: (body: Schemas['NotificationConfigInput']) => api.put('/v1/notifications', { body }),
    onSuccess: (answer) => {
      queryClient.setQueryData(['notifications'], answer);
      void queryClient.invalidateQueries({ queryKey: ['usage'] });
      setDrafts(draftsOf(answer));
      setSavedJson(JSON.stringify(inputOf(draftsOf(answer))));
    },
  });
  const changed = JSON.stringify(inputOf(drafts)) !== savedJson;
  const problem = save.error ? channelProblem(save.error, describeError) : null;
  const sources = { hashtags: (tracks.data?.data ?? []).map((t) => t.hashtag), accounts: (accounts.data?.data ?? []).map((a) => a.username) };
  const limit = usage.data?.webhooks_limit ?? Infinity;
  const savedIds = new Set(saved.webhooks.map((channel) => channel.id));
  return (
    <form onSubmit={(event) => { event.preventDefault(); save.mutate(inputOf(drafts)); }} noValidate>
      {usage.data ? <UsageMeter label="Webhooks on your plan" used={drafts.webhooks.length} limit={usage.data.webhooks_limit} unit="webhooks" /> : null}
      {drafts.webhooks.map((draft, index) => (
        <WebhookFieldset key={draft.key} index={index} draft={draft} saved={Boolean(draft.id && savedIds.has(draft.id))} changed={changed} sources={sources} post={post}
          problem={problem && typeof problem.channel === 'object' && problem.channel?.webhook === index ? problem : null}
          onChange={(next) => setDrafts((current) => ({ ...current, webhooks: current.webhooks.map((item, at) => (at === index ? next : item)) }))}
          onRemove={() => setDrafts((current) => ({ ...current, webhooks: current.webhooks.filter((_item, at) => at !== index) }))} />
      ))}
      <p>
        <button type="button" className="secondary" disabled={drafts.webhooks.length >= limit} onClick={() => setDrafts((current) => ({ ...current, webhooks: [...current.webhooks, newWebhook()] }))}>
          Add webhook
        </button>
        {drafts.webhooks.length >= limit ? <small className="limit-note"> Your plan allows {limit} webhooks. Change plan under Billing for more.</small> : null}
      </p>
      {drafts.bot ? (
        <BotFieldset draft={drafts.bot} saved={saved.bot !== null} changed={changed} sources={sources} post={post} problem={problem?.channel === 'bot' ? problem : null}
          onChange={(bot) => setDrafts((current) => ({ ...current, bot }))} onRemove={() => setDrafts((current) => ({ ...current, bot: null }))} />
      ) : (
        <p>
          <button type="button" className="secondary" onClick={() => setDrafts((current) => ({ ...current, bot: newBot() }))}>
            Add Telegram bot
          </button>
        </p>
      )}
      {problem && problem.channel === null ? <ErrorNote>{problem.message}</ErrorNote> : problem ? <ErrorNote>Fix the field marked above: {problem.message}</ErrorNote> : null}
      <div className="save-bar">
        <button type="submit" aria-busy={save.isPending} disabled={save.isPending}>
          Save
        </button>
        {save.isSuccess && !changed ? <Done>Saved</Done> : changed ? <small>Unsaved changes</small> : null}
      </div>
    </form>
  );
}

/** Webhook channels and the Telegram bot with every option, template previews, tests and the delivery log. */
export function NotificationsPage() {
  const config = useNotifications();
  const names = new Map((config.data?.webhooks ?? []).map((channel, index) => [channel.id, `Webhook ${index + 1}`]));
  return (
    <>
      <h1>Notifications</h1>
      {config.error ? <ErrorNote error={config.error} /> : !config.data ? <Loading what="your channels" /> : <Editor saved={config.data} />}
      <DeliveryLog channelName={(id) => (id === 'bot' ? 'Telegram bot' : (names.get(id) ?? id))} />
    </>
  );
}
