import type { FeedItem } from '../../api/client';
import { Field } from '../../components/Field';
import { ErrorNote } from '../../components/Status';
import { noticesUnlessSwitched, type BotDraft } from './channel-draft';
import { ChannelOptions } from './ChannelOptions';
import { TestButton } from './TestButton';

/** The fields that show their own error; any other complaint about the bot is shown for the whole group. */
const SHOWN_FIELDS = ['token', 'chat_id', 'template'];

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
      {problem && !SHOWN_FIELDS.includes(problem.field ?? '') ? <ErrorNote>{problem.message}</ErrorNote> : null}
      <ChannelOptions values={draft} sources={sources} post={post} templateError={error('template')} noticesUnlessSwitched={noticesUnlessSwitched(draft)} onChange={set} />
      <div className="channel-actions">
        {saved ? <TestButton target={{ channel: 'bot' }} unsaved={changed} /> : <small>Save to test the bot.</small>}
        <button type="button" className="outline contrast small" onClick={onRemove}>
          Remove bot
        </button>
      </div>
    </fieldset>
  );
}
