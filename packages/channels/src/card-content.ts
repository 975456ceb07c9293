import { MAX_DIGEST_ALERTS, type AlertDigest, type AlertPost } from './alert';
import { cardImage, partsText, splitLinks, type BodyPart, type CardImage } from './post-body';
import { fitList, fitText, oneLine, type Measure } from './text-fit';

/** The post a card's post quotes. */
export interface QuotedCard {
  /** Handle with `@`. */
  handle: string;
  name: string;
  /** Trimmed (after the body gives way) to meet a platform limit. */
  text: string;
  url: string;
}

/** The platform-neutral parts of a default card (header, byline, body, link), rendered by each adapter in its own markup. */
export interface CardContent {
  /** The header line, naming the matched source. */
  header: string;
  /** Author handle and display name; null on engagement cards, whose header names the account. */
  byline: { handle: string; name: string } | null;
  /** The post text as written, split at its links: with the quoted text, the only part trimmed to meet a platform limit. */
  parts: BodyPart[];
  /** The body is the engaged post's text, shown as a quote. */
  quoted: boolean;
  /** Never trimmed. */
  link: string;
  /** The image shown with the card (only when asked for), or null. */
  image: CardImage | null;
  /** The post this one quotes, or null. */
  quotedPost: QuotedCard | null;
  /** The post was edited after it was first seen. */
  edited: boolean;
}

export interface CardOptions {
  /** The platform shows the post's first image with the card; a media link that ends the text is then left out. */
  showImage?: boolean;
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
export const QUOTED_LINK_LABEL = 'View quoted post';
export const QUOTING_LABEL = 'Quoting';
export const EDITED_LABEL = 'edited';

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

function textParts(text: string): BodyPart[] {
  return text === '' ? [] : [{ kind: 'text', text }];
}

/**
 * The card of one alert. A post's links, image, quoted post and edit mark are shown; a deleted post and an
 * engagement alert keep the plain card (header, byline, text, link).
 */
export function cardContent(alert: AlertPost, options: CardOptions = {}): CardContent {
  const source = fitText(alert.source, MAX_SOURCE);
  if (alert.type === 'engagement') {
    // Likes and retweets carry only a fixed note as text, so the card shows the engaged post instead.
    const quoted = alert.kind !== 'reply' && Boolean(alert.parent_text);
    return {
      header: `${engagementPhrase(alert, true)} on ${source}`,
      byline: null,
      parts: textParts(quoted ? (alert.parent_text ?? '') : alert.text),
      quoted,
      link: engagementLink(alert),
      image: null,
      quotedPost: null,
      edited: false,
    };
  }
  const header = alert.test
    ? `Test alert: new post on ${source}`
    : alert.type === 'account'
      ? `New post from ${source}`
      : `New post on ${source}`;
  const card: CardContent = {
    header,
    byline: { handle: fitText(alert.author, MAX_HANDLE), name: fitText(alert.author_name, MAX_NAME) },
    parts: textParts(alert.text),
    quoted: false,
    link: alert.url,
    image: null,
    quotedPost: null,
    edited: false,
  };
  if (alert.deleted) return card;
  const image = options.showImage ? cardImage(alert.media ?? []) : null;
  const quoted = alert.quoted;
  return {
    ...card,
    parts: splitLinks(alert.text, alert.urls ?? [], { dropMedia: image !== null }),
    image,
    quotedPost: quoted
      ? { handle: fitText(quoted.author, MAX_HANDLE), name: fitText(quoted.author_name, MAX_NAME), text: quoted.text, url: quoted.url }
      : null,
    edited: Boolean(alert.edited_at),
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
        // One short line: links as their display text (never a link that a cut could split).
        text: oneLine(partsText(card.parts, (label) => label)),
        link: card.link,
      };
    }),
    more: total - shown.length,
  };
}

/**
 * Renders a digest with the longest per-item text budget whose rendering measures at most `limit`. When not
 * even items without text fit, fewer items are listed and the rest counted in the closing line, so a digest
 * is never cut through its markup.
 */
export function fitDigest(
  content: DigestContent,
  limit: number,
  render: (content: DigestContent, textBudget: number) => string,
  measure: Measure = (text) => text.length,
): string {
  for (let shown = content.items.length; shown >= 1; shown -= 1) {
    const listed = { ...content, items: content.items.slice(0, shown), more: content.more + content.items.length - shown };
    const rendered = fitList((budget) => render(listed, budget), limit, measure);
    if (measure(rendered) <= limit) return rendered;
  }
  return render({ ...content, items: [], more: content.more + content.items.length }, 0);
}

/** The closing line of a digest that lists fewer alerts than it stands for. */
export function moreLine(more: number): string {
  return `…and ${more} more`;
}

/** Plain-text rendering of a default card: the json format's `text` and Telegram's plain fallback. Links are written as their address. */
export function plainCard(card: CardContent, parts: readonly BodyPart[] = card.parts, quoteText = card.quotedPost?.text ?? ''): string {
  const byline = card.byline
    ? [card.byline.handle, card.byline.name, card.edited ? EDITED_LABEL : ''].filter((part) => part !== '').join(' · ')
    : '';
  const body = partsText(parts, (_label, url) => url);
  const quote = card.quotedPost;
  return joinSections([
    [card.header, byline],
    [card.quoted ? quoteLines(body, '> ') : body],
    quote ? [`${QUOTING_LABEL} ${[quote.handle, quote.name].filter((part) => part !== '').join(' · ')}`, quoteText === '' ? '' : quoteLines(quoteText, '> '), quote.url] : [],
    [card.link],
  ]);
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
