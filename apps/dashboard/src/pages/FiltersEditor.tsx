import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../api/client';
import { formProblem, type FormProblem } from '../api/errors';
import { Field, TextAreaField } from '../components/Field';
import { ErrorNote } from '../components/Status';
import { FeedItemView } from './FeedItem';

type Filters = Schemas['Filters'];
type FiltersInput = NonNullable<Schemas['SourcePatch']['filters']>;
type Preview = Schemas['FilterPreview'];

const LISTS: [keyof Pick<Filters, 'keywords_any' | 'keywords_all' | 'keywords_none'>, string][] = [
  ['keywords_any', 'Any of these words'],
  ['keywords_all', 'All of these words'],
  ['keywords_none', 'None of these words'],
];

const SWITCHES: [keyof Pick<Filters, 'has_media' | 'has_links' | 'exclude_quotes' | 'verified_only'>, string][] = [
  ['has_media', 'Only posts with a photo or video'],
  ['has_links', 'Only posts with a link'],
  ['exclude_quotes', 'Leave quote posts out'],
  ['verified_only', 'Only verified authors'],
];

const FIELDS = ['filters.keywords_any', 'filters.keywords_all', 'filters.keywords_none', 'filters.min_followers', 'filters'];

/** "none", or what the filters ask for in a few words: "any of etf, "all time high" · media · ≥ 10,000 followers". */
export function describeFilters(filters: Filters): string {
  const parts = [
    filters.keywords_any.length ? `any of ${filters.keywords_any.join(', ')}` : '',
    filters.keywords_all.length ? `all of ${filters.keywords_all.join(', ')}` : '',
    filters.keywords_none.length ? `none of ${filters.keywords_none.join(', ')}` : '',
    filters.has_media ? 'media' : '',
    filters.has_links ? 'links' : '',
    filters.exclude_quotes ? 'no quotes' : '',
    filters.verified_only ? 'verified authors' : '',
    filters.min_followers > 0 ? `≥ ${filters.min_followers.toLocaleString('en-US')} followers` : '',
  ].filter(Boolean);
  return parts.length === 0 ? 'none' : parts.join(' · ');
}

/** The form as the API takes it: one word or "quoted phrase" per line; an empty list is left out. */
function readForm(form: HTMLFormElement): FiltersInput {
  const data = new FormData(form);
  const input: FiltersInput = {};
  for (const [name] of LISTS) {
    const words = String(data.get(name) ?? '').split('\n').map((line) => line.trim()).filter(Boolean);
    if (words.length > 0) input[name] = words;
  }
  for (const [name] of SWITCHES) if (data.get(name) === 'on') input[name] = true;
  const floor = String(data.get('min_followers') ?? '').trim();
  if (floor !== '') input.min_followers = Number(floor);
  return input;
}

/**
 * A source's filters: edited as a whole, tried first on the posts the source already detected (the newest 20 that
 * would have passed), then saved. Saving applies them from the next scan.
 */
export function FiltersEditor({ kind, id, name, filters }: { kind: 'tracks' | 'accounts'; id: string; name: string; filters: Filters }) {
  const queryClient = useQueryClient();
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const params = { path: { id } };
  const tryFilters = useMutation({
    mutationFn: async (body: { filters: FiltersInput }) =>
      kind === 'tracks' ? api.post('/v1/tracks/{id}/preview', { params, body }) : api.post('/v1/accounts/{id}/preview', { params, body }),
  });
  const save = useMutation({
    mutationFn: async (body: { filters: FiltersInput | null }) => {
      if (kind === 'tracks') await api.patch('/v1/tracks/{id}', { params, body });
      else await api.patch('/v1/accounts/{id}', { params, body });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [kind] }),
  });
  const onError = (error: unknown) => setProblem(formProblem(error, FIELDS));
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setProblem(null);
    save.mutate({ filters: readForm(event.currentTarget) }, { onError });
  };
  const runPreview = (form: HTMLFormElement | null) => {
    if (!form) return;
    setProblem(null);
    tryFilters.mutate({ filters: readForm(form) }, { onSuccess: setPreview, onError });
  };
  const fieldError = (field: string) => (problem?.field === `filters.${field}` ? problem.message : undefined);
  return (
    <details className="filters">
      <summary>Filters of {name}: {describeFilters(filters)}</summary>
      {/* Keyed by the saved filters: after a save or a removal the fields show what is saved, never what was typed before. */}
      <form key={JSON.stringify(filters)} onSubmit={submit} noValidate>
        {LISTS.map(([field, label], index) => (
          <TextAreaField key={field} label={label} name={field} rows={2} defaultValue={filters[field].join('\n')} error={fieldError(field)}
            {...(index === 0 ? { hint: 'One word or "quoted phrase" per line, up to 20 in each list. Case is ignored; words match whole.' } : {})} />
        ))}
        <div className="switches">
          {SWITCHES.map(([field, label]) => (
            <label key={field}>
              <input type="checkbox" name={field} defaultChecked={filters[field]} />
              {label}
            </label>
          ))}
        </div>
        <Field label="Minimum followers" name="min_followers" type="number" min={0} inputMode="numeric" defaultValue={filters.min_followers || ''}
          placeholder="0" error={fieldError('min_followers')} hint="The author's followers when the post was detected." />
        <div className="filter-actions">
          <button type="button" className="secondary" aria-busy={tryFilters.isPending} disabled={tryFilters.isPending} onClick={(event) => runPreview(event.currentTarget.form)}>
            Preview
          </button>
          <button type="submit" aria-busy={save.isPending} disabled={save.isPending}>
            Save filters
          </button>
          <button type="button" className="outline" disabled={save.isPending} onClick={() => save.mutate({ filters: null }, { onError, onSuccess: () => setPreview(null) })}>
            Remove filters
          </button>
        </div>
        {save.isSuccess ? <p role="status">Saved: the next scan applies them.</p> : null}
        {problem && (!problem.field || problem.field === 'filters') ? <ErrorNote>{problem.message}</ErrorNote> : null}
      </form>
      {preview ? (
        <section aria-label={`Preview of ${name}`} className="filter-preview">
          <p role="status">
            {preview.passed} of the last {preview.examined} stored posts of {name} would have passed{preview.data.length < preview.passed ? `; the newest ${preview.data.length}:` : preview.passed > 0 ? ':' : '.'}
          </p>
          {preview.data.map((item) => (
            <FeedItemView key={item.id} item={item} />
          ))}
        </section>
      ) : null}
    </details>
  );
}
