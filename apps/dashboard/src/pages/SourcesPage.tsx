import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../api/client';
import { describeError, formProblem, type FormProblem } from '../api/errors';
import { useAccountTracks, useTracks, useUsage } from '../api/queries';
import { Field } from '../components/Field';
import { Empty, ErrorNote, Loading } from '../components/Status';
import { limitState, UsageMeter } from '../components/UsageMeter';
import { FiltersEditor } from './FiltersEditor';

type Flags = Pick<Schemas['Track'], 'track_engagement' | 'track_likes' | 'track_reposts' | 'track_comments'>;
/** A track or an account as the list shows it; `details` says what was set at creation (language, exclusions). */
type Source = Flags & { id: string; name: string; details: string; filters: Schemas['Filters'] };

const SWITCHES: [keyof Flags, string][] = [
  ['track_engagement', 'Engagement tracking'],
  ['track_likes', 'Likes'],
  ['track_reposts', 'Reposts'],
  ['track_comments', 'Replies'],
];

interface Kind {
  title: string;
  /** The query key and path: tracks or accounts. */
  key: 'tracks' | 'accounts';
  label: 'Hashtag' | 'Username';
  field: 'hashtag' | 'username';
  prefix: '#' | '@';
  add: 'Add track' | 'Add account';
  usage: (usage: Schemas['Usage']) => { used: number; limit: number; unit: string };
  hint: string;
}

function EngagementSwitches({ source, onChange, busy }: { source: Source; onChange: (patch: Partial<Flags>) => void; busy: boolean }) {
  return (
    <fieldset className="switches">
      <legend className="visually-hidden">Engagement of {source.name}</legend>
      {SWITCHES.map(([flag, label]) => (
        <label key={flag}>
          <input type="checkbox" role="switch" checked={source[flag]} disabled={busy || (flag !== 'track_engagement' && !source.track_engagement)}
            onChange={(event) => onChange({ [flag]: event.currentTarget.checked })} />
          {label}
        </label>
      ))}
    </fieldset>
  );
}

function SourceRow({ kind, source }: { kind: Kind; source: Source }) {
  const queryClient = useQueryClient();
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: [kind.key] }), queryClient.invalidateQueries({ queryKey: ['usage'] })]);
  const patch = useMutation({
    mutationFn: async (body: Partial<Flags>) => {
      const params = { path: { id: source.id } };
      if (kind.key === 'tracks') await api.patch('/v1/tracks/{id}', { params, body });
      else await api.patch('/v1/accounts/{id}', { params, body });
    },
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: () =>
      kind.key === 'tracks'
        ? api.delete('/v1/tracks/{id}', { params: { path: { id: source.id } } })
        : api.delete('/v1/accounts/{id}', { params: { path: { id: source.id } } }),
    onSuccess: refresh,
  });
  return (
    <li className="source">
      <div className="source-head">
        <span>
          <strong>{source.name}</strong> {source.details ? <small className="details">{source.details}</small> : null}
        </span>
        <button type="button" className="outline contrast small" aria-busy={remove.isPending} disabled={remove.isPending} onClick={() => remove.mutate()}>
          Delete {source.name}
        </button>
      </div>
      <EngagementSwitches source={source} busy={patch.isPending} onChange={(body) => patch.mutate(body)} />
      <FiltersEditor kind={kind.key} id={source.id} name={source.name} filters={source.filters} />
      {patch.error ? <ErrorNote>{describeError(patch.error)}</ErrorNote> : null}
      {remove.error ? <ErrorNote>{describeError(remove.error)}</ErrorNote> : null}
    </li>
  );
}

function AddForm({ kind, full }: { kind: Kind; full: boolean }) {
  const queryClient = useQueryClient();
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const add = useMutation({
    mutationFn: async (form: FormData) => {
      const value = String(form.get('value')).trim().replace(/^[#@$]/, '');
      const engagement = form.get('engagement') === 'on';
      if (kind.key === 'tracks') {
        const lang = String(form.get('lang') ?? '').trim();
        await api.post('/v1/tracks', { body: { hashtag: value, lang: lang === '' ? null : lang, exclude_retweets: form.get('exclude') === 'on', track_engagement: engagement } });
      } else {
        const mentions = form.get('mentions') === 'on';
        await api.post('/v1/accounts', { body: { username: value, exclude_replies: form.get('exclude') === 'on', include_mentions: mentions, track_engagement: engagement } });
      }
    },
    // Also after a 403: the usage it was refused by is newer than the page's.
    onSettled: () => Promise.all([queryClient.invalidateQueries({ queryKey: [kind.key] }), queryClient.invalidateQueries({ queryKey: ['usage'] })]),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    setProblem(null);
    add.mutate(new FormData(form), { onSuccess: () => form.reset(), onError: (error) => setProblem(formProblem(error, [kind.field, 'lang'])) });
  };
  const fieldError = (name: string) => (problem?.field === name ? problem.message : undefined);
  return (
    <form onSubmit={submit} noValidate>
      <div className="add-form">
        <Field label={kind.label} name="value" required autoComplete="off" hint={kind.hint} error={fieldError(kind.field)} />
        {kind.key === 'tracks' ? (
          <Field label="Language" name="lang" autoComplete="off" maxLength={3} placeholder="any" hint="Optional: 2–3 letters (en, de), X's language code." error={fieldError('lang')} />
        ) : null}
        <button type="submit" aria-busy={add.isPending} disabled={add.isPending || full}>
          {kind.add}
        </button>
      </div>
      <div className="switches">
        <label>
          {/* Checked by default, as the API's default (SPEC 2.1, 2.2). */}
          <input type="checkbox" name="exclude" defaultChecked />
          {kind.key === 'tracks' ? 'Exclude retweets' : 'Exclude replies'}
        </label>
        {kind.key === 'accounts' ? (
          <label>
            <input type="checkbox" name="mentions" />
            Include posts that mention it
          </label>
        ) : null}
        <label>
          <input type="checkbox" name="engagement" />
          Track engagement from the start
        </label>
      </div>
      {problem && !problem.field ? <ErrorNote>{problem.message}</ErrorNote> : null}
    </form>
  );
}

function SourcesPage({ kind, sources, loading, error }: { kind: Kind; sources: Source[]; loading: boolean; error: unknown }) {
  const usage = useUsage();
  const count = usage.data ? kind.usage(usage.data) : null;
  const full = count ? limitState(count.used, count.limit) === 'reached' : false;
  return (
    <>
      <h1>{kind.title}</h1>
      {count ? <UsageMeter label={`${kind.label === 'Hashtag' ? 'Hashtags' : 'Accounts'} on your plan`} used={count.used} limit={count.limit} unit={count.unit} /> : null}
      {usage.data ? (
        <UsageMeter label="Engagement tracking (tracks and accounts)" used={usage.data.engagement_used} limit={usage.data.engagement_limit} unit="sources" />
      ) : null}
      {full ? <p className="limit-note">Your plan’s limit is reached: delete one, or change your plan under Billing, to add another.</p> : null}
      <AddForm kind={kind} full={full} />
      {error && sources.length === 0 ? <ErrorNote error={error} /> : loading ? <Loading what={kind.title.toLowerCase()} /> : sources.length === 0 ? (
        <Empty>Nothing watched yet. Add the first above; it is scanned within one cadence.</Empty>
      ) : (
        <ul className="sources">
          {sources.map((source) => (
            <SourceRow key={source.id} kind={kind} source={source} />
          ))}
        </ul>
      )}
    </>
  );
}

const TRACKS: Kind = {
  title: 'Tracks', key: 'tracks', label: 'Hashtag', field: 'hashtag', prefix: '#', add: 'Add track',
  usage: (u) => ({ used: u.hashtags_used, limit: u.hashtags_limit, unit: 'hashtags' }),
  hint: 'Without # or $: letters, digits or _. One track matches both #tag and $tag.',
};
const ACCOUNTS: Kind = {
  title: 'Accounts', key: 'accounts', label: 'Username', field: 'username', prefix: '@', add: 'Add account',
  usage: (u) => ({ used: u.accounts_used, limit: u.accounts_limit, unit: 'accounts' }),
  hint: 'Without @: 1 to 15 letters, digits or _.',
};

export function TracksPage() {
  const tracks = useTracks();
  const sources = (tracks.data?.data ?? []).map((track) => ({
    ...track,
    name: `#${track.hashtag}`,
    details: [track.lang ? `language ${track.lang}` : 'any language', track.exclude_retweets ? 'retweets excluded' : ''].filter(Boolean).join(', '),
  }));
  return <SourcesPage kind={TRACKS} sources={sources} loading={tracks.isPending} error={tracks.error} />;
}

export function AccountsPage() {
  const accounts = useAccountTracks();
  const sources = (accounts.data?.data ?? []).map((account) => ({
    ...account,
    name: `@${account.username}`,
    details: [account.include_mentions ? 'with mentions' : '', account.exclude_replies ? 'replies excluded' : ''].filter(Boolean).join(', '),
  }));
  return <SourcesPage kind={ACCOUNTS} sources={sources} loading={accounts.isPending} error={accounts.error} />;
}
