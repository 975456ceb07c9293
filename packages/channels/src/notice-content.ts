import type { NoticeBody, NoticeKindName } from './alert';
import { joinSections } from './card-content';
import { fitText } from './text-fit';

/** The platform-neutral parts of a notice card, rendered by each adapter in its own markup. */
export interface NoticeContent {
  /** "⚠ Hashwatch notice: …" while open, "✅ Resolved: …" for the resolution. */
  header: string;
  /** What the notice is about ("Source: #btc", "Channel: wh_…"), or empty. */
  subject: string;
  /** The notice's message: the only part trimmed to meet a platform limit. */
  body: string;
  /** When it opened (and resolved), in UTC. */
  footer: string;
  /** The instant the card is about: the resolution's time, else the opening's. */
  timestamp: string;
}

const KIND_LABELS: Record<NoticeKindName, string> = {
  source_silent: 'source silent',
  source_failing: 'source failing',
  channel_failing: 'channel failing',
  channel_disabled: 'channel disabled',
  quota_warning: 'alert quota at 80 %',
  quota_exhausted: 'alert quota used up',
};

export const NOTICE_OPEN_TITLE = '⚠ Hashwatch notice';
export const NOTICE_RESOLVED_TITLE = '✅ Resolved';

// The same caps as an alert card's: a source is at most 101 characters, a channel id well under it.
const MAX_SUBJECT = 120;

/** `2026-11-27T01:02:03.000Z` → `2026-11-27 01:02 UTC`: read by a person, in the one zone every reader shares. */
function readableTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

function subjectOf(notice: NoticeBody): string {
  if (notice.source) return `Source: ${fitText(notice.source, MAX_SUBJECT)}`;
  if (notice.channel_id === 'bot') return 'Channel: the Telegram bot';
  if (notice.channel_id) return `Channel: ${fitText(notice.channel_id, MAX_SUBJECT)}`;
  return '';
}

export function noticeContent(notice: NoticeBody): NoticeContent {
  const label = KIND_LABELS[notice.kind] ?? notice.kind.replace(/_/g, ' ');
  const resolved = notice.state === 'resolved';
  const opened = readableTime(notice.opened_at);
  return {
    header: `${resolved ? NOTICE_RESOLVED_TITLE : NOTICE_OPEN_TITLE}: ${label}`,
    subject: subjectOf(notice),
    body: notice.message,
    footer: resolved && notice.resolved_at ? `Opened ${opened} · resolved ${readableTime(notice.resolved_at)}` : `Since ${opened}`,
    timestamp: resolved && notice.resolved_at ? notice.resolved_at : notice.opened_at,
  };
}

/** Plain-text rendering of a notice card: the json format's `text` and Telegram's plain fallback. */
export function plainNotice(content: NoticeContent, body = content.body): string {
  return joinSections([[content.header, content.subject], [body], [content.footer]]);
}
