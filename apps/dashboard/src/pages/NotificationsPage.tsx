import { useQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas } from '../api/client';
import { describeError } from '../api/errors';
import { useAccountTracks, useNotifications, useTracks, useUsage } from '../api/queries';
import { Done, ErrorNote, Loading } from '../components/Status';
import { UsageMeter } from '../components/UsageMeter';
import { BotFieldset } from './notifications/BotFieldset';
import { channelProblem, inputOf, newBot, newWebhook } from './notifications/channel-draft';
import { useDrafts } from './notifications/use-drafts';
import { DeliveryLog } from './notifications/DeliveryLog';
import { WebhookFieldset } from './notifications/WebhookFieldset';

/** The newest hashtag post (else account post), for template previews: what most alerts look like. */
const useNewestPost = () =>
  useQuery({
    queryKey: ['newest-post'],
    queryFn: async () => {
      const tagged = await api.get('/v1/posts', { params: { query: { limit: 1, type: 'hashtag' } } });
      return tagged.data.length > 0 ? tagged : api.get('/v1/posts', { params: { query: { limit: 1, type: 'account' } } });
    },
  });

/**
 * The drafts start from the configuration as read on this visit. A newer one from the server (another tab, the
 * account's backend, the notifier disabling a failing channel) replaces the drafts when nothing was edited; over
 * edits it is announced, because saving replaces the whole configuration.
 */
function Editor({ saved }: { saved: Schemas['NotificationConfig'] }) {
  const queryClient = useQueryClient();
  const usage = useUsage();
  const tracks = useTracks();
  const accounts = useAccountTracks();
  const post = useNewestPost().data?.data[0];
  const save = useMutation({
    mutationFn: (body: Schemas['NotificationConfigInput']) => api.put('/v1/notifications', { body }),
    onSuccess: (answer) => {
      queryClient.setQueryData(['notifications'], answer);
      void queryClient.invalidateQueries({ queryKey: ['usage'] });
      start(answer);
    },
  });
  const { drafts, setDrafts, changed, changedElsewhere, start } = useDrafts(saved, save.isPending);
  const discard = () => start(saved);
  const problem = save.error ? channelProblem(save.error, describeError) : null;
  const sources = { hashtags: (tracks.data?.data ?? []).map((t) => t.hashtag), accounts: (accounts.data?.data ?? []).map((a) => a.username) };
  const limit = usage.data?.webhooks_limit ?? Infinity;
  const savedIds = new Set(saved.webhooks.map((channel) => channel.id));
  return (
    <form onSubmit={(event) => { event.preventDefault(); save.mutate(inputOf(drafts)); }} noValidate>
      {changedElsewhere ? (
        <p role="alert" className="limit-note">
          These channels were changed elsewhere since this page loaded. Saving replaces them with what this page shows.{' '}
          <button type="button" className="secondary small" onClick={discard}>
            Discard my changes
          </button>
        </p>
      ) : null}
      {/* Nothing is edited while a save is under way: its answer replaces the drafts. */}
      <fieldset className="plain" disabled={save.isPending}>
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
      {problem && problem.channel === null ? <ErrorNote>{problem.message}</ErrorNote> : problem ? <ErrorNote>Not saved: fix what is marked above.</ErrorNote> : null}
      </fieldset>
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
      {config.error && !config.data ? (
        <ErrorNote error={config.error} />
      ) : !config.data || !config.isFetchedAfterMount ? (
        <Loading what="your channels" />
      ) : (
        <Editor saved={config.data} />
      )}
      <DeliveryLog channelName={(id) => (id === 'bot' ? 'Telegram bot' : (names.get(id) ?? id))} />
    </>
  );
}
