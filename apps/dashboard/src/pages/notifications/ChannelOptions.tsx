import type { FeedItem } from '../../api/client';
import { ScopePicker, type Scope } from './ScopePicker';
import { TemplateEditor } from './TemplateEditor';

/** What every channel kind has: its scope and source filter, template, engagement alerts and on/off switch. */
export interface ChannelOptionValues extends Scope {
  template: string;
  engagement_alerts: boolean;
  enabled: boolean;
}

interface ChannelOptionsProps {
  values: ChannelOptionValues;
  sources: { hashtags: string[]; accounts: string[] };
  post: FeedItem | undefined;
  templateError: string | undefined;
  onChange: (patch: Partial<ChannelOptionValues>) => void;
}

/** The options a webhook channel and the bot share, in the same order on both. */
export function ChannelOptions({ values, sources, post, templateError, onChange }: ChannelOptionsProps) {
  return (
    <>
      <ScopePicker scope={values} hashtags={sources.hashtags} accounts={sources.accounts} onChange={(scope) => onChange(scope)} />
      <TemplateEditor value={values.template} post={post} error={templateError} onChange={(template) => onChange({ template })} />
      <label>
        <input type="checkbox" role="switch" checked={values.engagement_alerts} onChange={(event) => onChange({ engagement_alerts: event.currentTarget.checked })} />
        Engagement alerts
      </label>
      <label>
        <input type="checkbox" role="switch" checked={values.enabled} onChange={(event) => onChange({ enabled: event.currentTarget.checked })} />
        Enabled
      </label>
    </>
  );
}
