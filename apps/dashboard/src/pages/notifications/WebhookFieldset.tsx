import { resolveFormat } from '@hashwatch/channels/resolve-format';
import type { FeedItem } from '../../api/client';
import { CopyButton } from '../../components/CopyButton';
import { Field, SelectField } from '../../components/Field';
import { ErrorNote } from '../../components/Status';
import { noticesUnlessSwitched, type WebhookDraft } from './channel-draft';
import { ChannelOptions } from './ChannelOptions';
import { TestButton } from './TestButton';

const FORMATS = [
  ['auto', 'Auto (from the address)'],
  ['discord', 'Discord'],
  ['slack', 'Slack'],
  ['json', 'JSON (signed)'],
] as const;

/** The fields that show their own error; any other complaint about the channel is shown for the whole group. */
const SHOWN_FIELDS = ['url', 'format', 'bot_name', 'template', 'max_per_second'];

interface WebhookFieldsetProps {
  index: number;
  draft: WebhookDraft;
  saved: boolean;
  changed: boolean;
  sources: { hashtags: string[]; accounts: string[] };
  post: FeedItem | undefined;
  /** The API's complaint about one of this channel's fields. */
  problem: { field: string | null; message: string } | null;
  onChange: (draft: WebhookDraft) => void;
  onRemove: () => void;
}

/** Every field of one webhook channel, its signing secret, its test button and its removal. */
export function WebhookFieldset({ index, draft, saved, changed, sources, post, problem, onChange, onRemove }: WebhookFieldsetProps) {
  const set = (patch: Partial<WebhookDraft>) => onChange({ ...draft, ...patch });
  const error = (field: string) => (problem?.field === field ? problem.message : undefined);
  return (
    <fieldset className="channel" aria-label={`Webhook ${index + 1}`}>
      <legend>Webhook {index + 1}</legend>
      {draft.disabled_reason ? <p className="limit-note">Disabled: {draft.disabled_reason}</p> : null}
      <Field label="Webhook URL" type="url" value={draft.url} required placeholder="https://discord.com/api/webhooks/…" error={error('url')}
        onChange={(event) => set({ url: event.currentTarget.value })} />
      <div className="grid">
        <SelectField label="Format" value={draft.format} options={FORMATS} error={error('format')}
          onChange={(event) => set({ format: event.currentTarget.value as WebhookDraft['format'] })} />
        <Field label="Bot name" value={draft.bot_name} error={error('bot_name')} onChange={(event) => set({ bot_name: event.currentTarget.value })} />
      </div>
      {resolveFormat(draft.format, draft.url) === 'json' ? (
        <Field label="Most messages per second" type="number" inputMode="numeric" min={1} step={1} placeholder="no limit"
          value={draft.max_per_second ?? ''} error={error('max_per_second')}
          hint="Empty: as fast as your receiver answers, fewer at once when it slows down, fails or answers 429 (its Retry-After is kept)."
          onChange={(event) => set({ max_per_second: event.currentTarget.value === '' ? null : Number(event.currentTarget.value) })} />
      ) : null}
      {problem && !SHOWN_FIELDS.includes(problem.field ?? '') ? <ErrorNote>{problem.message}</ErrorNote> : null}
      <ChannelOptions values={draft} sources={sources} post={post} templateError={error('template')} noticesUnlessSwitched={noticesUnlessSwitched(draft)} onChange={set} />
      {draft.signing_secret ? (
        <p className="secret">
          Signing secret (Standard Webhooks, JSON format): <code>{draft.signing_secret}</code> <CopyButton text={draft.signing_secret} label="Copy secret" />
        </p>
      ) : null}
      <div className="channel-actions">
        {saved && draft.id ? <TestButton target={{ channel: 'webhook', id: draft.id }} unsaved={changed} /> : <small>Save to test this channel.</small>}
        <button type="button" className="outline contrast small" onClick={onRemove}>
          Remove webhook {index + 1}
        </button>
      </div>
    </fieldset>
  );
}
