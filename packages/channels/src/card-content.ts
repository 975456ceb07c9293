import { MAX_DIGEST_ALERTS, type AlertDigest, type AlertPost } from './alert';
import { fitText, oneLine } from './text-fit';

/** The platform-neutral parts of a default card (header, byline, body, link), rendered by each adapter in its own markup. */
export interface CardContent {
  /** The header line, naming the matched source. */
  header: string;
  /** Author handle and display name; null on engagement cards, whose header names the account. */
  byline: { handle: string; name: string } | null;
  /** The post text: the only part trimmed to meet a platform limit. */
  body: string;
  /** The body is the engaged post's text, shown as a quote. */
  quoted: boolean;
  /** Never trimmed. */
  link: string;
}

export interface DigestItem {
  source: string;
  /** The author handle, or the engagement phrase ("❤️ @bob liked a post"). */
  lead: string;
  /** One line; each adapter shortens it to fit. */
  text: string;
  link: string;
}

export interface DigestContent {
  header: string;
  items: DigestItem[];
  /** Alerts counted in the digest but not listed. */
  more: number;
}

export const LINK_LABEL = 'View post';

// Caps that keep a card's fixed parts small whatever the data holds, so the post text always has room:
// hashtags are at most 100 characters (POST /tracks refuses longer), handles 16 with the @, X display names 50.
const MAX_SOURCE = 101;
const MAX_HANDLE = 32;
const MAX_NAME = 100;

const ENGAGEMENT = {
  like: { emoji: '❤️', verb: 'liked a post' },
  retweet: { emoji: '🔁', verb: 'retweeted a post' },
  reply: { emoji: '💬', verb: 'replied to a post' },
} as const;

function engagementPhrase(alert: AlertPost, withName: boolean): string {
  const { emoji, verb } = ENGAGEMENT[alert.kind ?? 'reply'];
  const handle = fitText(alert.author, MAX_HANDLE);
  const name = fitText(alert.author_name, MAX_NAME);
  return `${emoji} ${withName && name ? `${handle} (${name})` : handle} ${verb}`;
}

/** Engagement alerts link to the engaged post, except replies, which link to the reply itself. */
function engagementLink(alert: AlertPost): string {
  return alert.kind === 'reply' ? alert.url : alert.parent_url || alert.url;
}

export function cardContent(alert: AlertPost): CardContent {
  const source = fitText(alert.source, MAX_SOURCE);
  if (alert.type === 'engagement') {
    // Likes and retweets carry only a fixed note as text, so the card shows the engaged post instead.
    const quoted = alert.kind !== 'reply' && Boolean(alert.parent_text);
    return {
      header: `${engagementPhrase(alert, true)} on ${source}`,
      byline: null,
      body: quoted ? (alert.parent_text ?? '') : alert.text,
      quoted,
      link: engagementLink(alert),
    };
  }
  const header = alert.test
    ? `Test alert: new post on ${source}`
    : alert.type === 'account'
      ? `New post from ${source}`
      : `New post on ${source}`;
  return {
    header,
    byline: { handle: fitText(alert.author, MAX_HANDLE), name: fitText(alert.author_name, MAX_NAME) },
    body: alert.text,
    quoted: false,
    link: alert.url,
  };
}

export function digestContent(digest: AlertDigest): DigestContent {
  const shown = digest.alerts.slice(0, MAX_DIGEST_ALERTS);
  const total = Math.max(digest.total ?? digest.alerts.length, digest.alerts.length);
  return {
    header: `${total} new alert${total === 1 ? '' : 's'}`,
    items: shown.map((alert) => {
      const card = cardContent(alert);
      return {
        source: fitText(alert.source, MAX_SOURCE),
        lead: alert.type === 'engagement' ? engagementPhrase(alert, false) : fitText(alert.author, MAX_HANDLE),
        text: oneLine(card.body),
        link: card.link,
      };
    }),
    more: total - shown.length,
  };
}

/** The closing line of a digest that lists fewer alerts than it stands for. */
export function moreLine(more: number): string {
  return `…and ${more} more`;
}

/** Plain-text rendering of a default card: the json format's `text` and Telegram's plain fallback. */
export function plainCard(card: CardContent, body = card.body): string {
  const byline = card.byline ? `${card.byline.handle}${card.byline.name ? ` · ${card.byline.name}` : ''}` : '';
  return joinSections([[card.header, byline], [card.quoted ? quoteLines(body, '> ') : body], [card.link]]);
}

/** Lines within a section are joined by a line break, non-empty sections by a blank line. */
export function joinSections(sections: string[][]): string {
  return sections
    .map((lines) => lines.filter((line) => line !== '').join('\n'))
    .filter((section) => section !== '')
    .join('\n\n');
}

export function quoteLines(text: string, marker: string): string {
  return text
    .split('\n')
    .map((line) => `${marker}${line}`)
    .join('\n');
}
