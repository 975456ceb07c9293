import { useId } from 'react';
import type { FeedItem } from '../../api/client';
import { ScopePicker, type Scope } from './ScopePicker';
import { TemplateEditor } from './TemplateEditor';

/** What every channel kind has: its scope and source filter, template, engagement alerts, notices and on/off switch. */
export interface ChannelOptionValues extends Scope {
  template: string;
  engagement_alerts: boolean;
  enabled: boolean;
  /** Set only once switched in this edit; unset, the channel keeps `noticesUnlessSwitched`. */
  notices?: boolean;
}

interface ChannelOptionsProps {
  values: ChannelOptionValues;
  sources: { hashtags: string[]; accounts: string[] };
  post: FeedItem | undefined;
  templateError: string | undefined;
  /** What the API applies when `notices` is not sent: the saved choice, else the platform's default (on for Discord, Slack and the bot, off for JSON). */
  noticesUnlessSwitched: boolean;
  onChange: (patch: Partial<ChannelOptionValues>) => void;
}

/** The options a webhook channel and the bot share, in the same order on both. */
export function ChannelOptions({ values, sources, post, templateError, noticesUnlessSwitched, onChange }: ChannelOptionsProps) {
  const noticesHint = useId();
  return (
    <>
      <ScopePicker scope={values} hashtags={sources.hashtags} accounts={sources.accounts} onChange={(scope) => onChange(scope)} />
      <TemplateEditor value={values.template} post={post} error={templateError} onChange={(template) => onChange({ template })} />
      <label>
        <input type="checkbox" role="switch" checked={values.engagement_alerts} onChange={(event) => onChange({ engagement_alerts: event.currentTarget.checked })} />
        Engagement alerts
      </label>
      <label>
        <input
          type="checkbox"
          role="switch"
          aria-describedby={noticesHint}
          checked={values.notices ?? noticesUnlessSwitched}
          onChange={(event) => onChange({ notices: event.currentTarget.checked })}
        />
        System notices
      </label>
      <small id={noticesHint} className="switch-hint">
        When a source goes silent or fails, a channel fails, or the alert quota runs low; never counted as alerts.
      </small>
      <label>
        <input type="checkbox" role="switch" checked={values.enabled} onChange={(event) => onChange({ enabled: event.currentTarget.checked })} />
        Enabled
      </label>
    </>
  );
}
