import type { FeedItem } from '../../api/client';
import { Field } from '../../components/Field';
import type { BotDraft } from './channel-draft';
import { ScopePicker } from './ScopePicker';
import { TemplateEditor } from './TemplateEditor';
import { TestButton } from './TestButton';

interface BotFieldsetProps {
  draft: BotDraft;
  saved: boolean;
  changed: boolean;
  sources: { hashtags: string[]; accounts: string[] };
  post: FeedItem | undefined;
  problem: { field: string | null; message: string } | null;
  onChange: (draft: BotDraft) => void;
  onRemove: () => void;
}

/** The Telegram bot channel: its token (write-only: the saved one shows its last characters), chat and every option. */
export function BotFieldset({ draft, saved, changed, sources, post, problem, onChange, onRemove }: BotFieldsetProps) {
  const set = (patch: Partial<BotDraft>) => onChange({ ...draft, ...patch });
  const error = (field: string) => (problem?.field === field ? problem.message : undefined);
  return (
    <fieldset className="channel">
      <legend>Telegram bot</legend>
      {draft.disabled_reason ? <p className="limit-note">Disabled: {draft.disabled_reason}</p> : null}
      <div className="grid">
        <Field label="Bot token" type="password" autoComplete="off" value={draft.token ?? ''} error={error('token')}
          hint={draft.token_hint ? `Saved token ending ${draft.token_hint}; leave empty to keep it.` : 'From @BotFather.'}
          onChange={(event) => set({ token: event.currentTarget.value })} />
        <Field label="Chat id" value={draft.chat_id} required error={error('chat_id')} hint="The chat, group or channel id, e.g. -1001234567890."
          onChange={(event) => set({ chat_id: event.currentTarget.value })} />
      </div>
      <ScopePicker scope={draft} hashtags={sources.hashtags} accounts={sources.accounts} onChange={(scope) => set(scope)} />
      <TemplateEditor value={draft.template} post={post} error={error('template')} onChange={(template) => set({ template })} />
      <label>
        <input type="checkbox" role="switch" checked={draft.engagement_alerts} onChange={(event) => set({ engagement_alerts: event.currentTarget.checked })} />
        Engagement alerts
      </label>
      <label>
        <input type="checkbox" role="switch" checked={draft.enabled} onChange={(event) => set({ enabled: event.currentTarget.checked })} />
        Enabled
      </label>
      <div className="channel-actions">
        {saved ? <TestButton target={{ channel: 'bot' }} unsaved={changed} /> : <small>Save to test the bot.</small>}
        <button type="button" className="outline contrast small" onClick={onRemove}>
          Remove bot
        </button>
      </div>
    </fieldset>
  );
}
