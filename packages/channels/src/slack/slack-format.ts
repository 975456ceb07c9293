import type { AlertDigest, AlertPost, SystemNotice } from '../alert';
import {
  cardContent,
  digestContent,
  EDITED_LABEL,
  joinSections,
  LINK_LABEL,
  moreLine,
  QUOTED_LINK_LABEL,
  QUOTING_LABEL,
  quoteLines,
  type CardContent,
} from '../card-content';
import { noticeContent } from '../notice-content';
import { fitParts, type BodyPart, type CardImage } from '../post-body';
import { effectiveTemplate, renderTemplate } from '../template';
import { fitList, fitRendered, fitText } from '../text-fit';

/*
 * Slack incoming-webhook and Block Kit limits: section text ≤ 3,000 characters, ≤ 50 blocks, message `text`
 * truncated past 40,000; an image block needs `image_url` (≤ 3,000) and a non-empty plain-text `alt_text`
 * (≤ 2,000). App webhooks cannot override the username or icon, so the bot name is written into the message
 * as a context line. mrkdwn needs only & < > escaped; links are <url|label>.
 */
export const SLACK_SECTION_LIMIT = 3000;
export const SLACK_IMAGE_URL_LIMIT = 3000;
export const SLACK_ALT_TEXT_LIMIT = 2000;

export interface SlackTextObject {
  type: 'mrkdwn';
  text: string;
}

export type SlackBlock =
  | { type: 'section'; text: SlackTextObject }
  | { type: 'context'; elements: SlackTextObject[] }
  | { type: 'image'; image_url: string; alt_text: string };

export interface SlackPayload {
  /** The notification fallback shown where blocks are not. */
  text: string;
  blocks: SlackBlock[];
}

/** Slack's three control characters; nothing else is entity-encoded. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const escapedLength = (text: string) => escapeMrkdwn(text).length;

function slackLink(url: string, label: string): string {
  // "|" would end the address part of the link early.
  return `<${escapeMrkdwn(url).replace(/\|/g, '%7C')}|${escapeMrkdwn(label)}>`;
}

function section(text: string): SlackBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

function context(text: string): SlackBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text }] };
}

/** The body with each link as `<expanded_url|display_url>`, the text between escaped. */
function renderParts(parts: readonly BodyPart[]): string {
  return parts.map((part) => (part.kind === 'text' ? escapeMrkdwn(part.text) : slackLink(part.url, part.label))).join('');
}

/** Slack's ">" quote marker must stay literal, so the quoted text is escaped before it is added. */
function renderBody(parts: readonly BodyPart[], quoted: boolean): string {
  return quoted ? quoteLines(renderParts(parts), '>') : renderParts(parts);
}

/** Slack refuses an image block without alt text: the author's description, else what the image is. */
function altText(image: CardImage, handle: string): string {
  const kind = image.type === 'photo' ? 'Photo' : image.type === 'animated_gif' ? 'GIF preview' : 'Video preview';
  return fitText(image.alt ?? `${kind} from the post by ${handle || 'its author'}`, SLACK_ALT_TEXT_LIMIT);
}

function imageBlock(image: CardImage, handle: string): SlackBlock {
  return { type: 'image', image_url: image.url, alt_text: altText(image, handle) };
}

function quotedSection(card: CardContent): SlackBlock | null {
  const quote = card.quotedPost;
  if (!quote) return null;
  const author = `${QUOTING_LABEL} *${escapeMrkdwn(quote.handle)}*${quote.name ? ` · ${escapeMrkdwn(quote.name)}` : ''}`;
  const link = slackLink(quote.url, QUOTED_LINK_LABEL);
  return section(
    fitRendered(quote.text, SLACK_SECTION_LIMIT, (text) => joinSections([[author, text === '' ? '' : quoteLines(escapeMrkdwn(text), '>'), link]])),
  );
}

/** `withImage` false: the card without its image block (and with the media link), after Slack could not fetch the image. */
export function slackAlertPayload(alert: AlertPost, botName: string, customTemplate: string, withImage = true): SlackPayload {
  const template = effectiveTemplate(customTemplate, alert);
  const sender = context(`*${escapeMrkdwn(botName)}*`);
  if (template !== '') {
    const text = renderTemplate(template, alert, { escape: escapeMrkdwn, maxLength: SLACK_SECTION_LIMIT });
    return { text, blocks: [sender, section(text)] };
  }
  let card = cardContent(alert, { showImage: withImage });
  // An image Slack would refuse is not shown; its media link then stays in the text.
  if (card.image && card.image.url.length > SLACK_IMAGE_URL_LIMIT) card = cardContent(alert);
  const header = `*${escapeMrkdwn(card.header)}*`;
  const byline = card.byline
    ? [`*${escapeMrkdwn(card.byline.handle)}*`, escapeMrkdwn(card.byline.name), card.edited ? `_${EDITED_LABEL}_` : '']
        .filter((part) => part !== '')
        .join(' · ')
    : '';
  const render = (parts: readonly BodyPart[]) =>
    joinSections([[header, byline], [renderBody(parts, card.quoted)], [slackLink(card.link, LINK_LABEL)]]);
  const text = render(fitParts(card.parts, SLACK_SECTION_LIMIT, (parts) => render(parts).length));
  const blocks = [sender, section(text)];
  if (card.image) blocks.push(imageBlock(card.image, card.byline?.handle ?? ''));
  const quoted = quotedSection(card);
  if (quoted) blocks.push(quoted);
  const fallback = escapeMrkdwn(card.byline ? `${card.header} · ${card.byline.handle}` : card.header);
  return { text: fallback, blocks };
}

export function slackDigestPayload(digest: AlertDigest, botName: string): SlackPayload {
  const content = digestContent(digest);
  const items = content.items.map((item) =>
    section(
      fitList(
        (budget) =>
          `*${escapeMrkdwn(item.source)}* · ${escapeMrkdwn(item.lead)}${
            item.text ? `: ${escapeMrkdwn(fitText(item.text, budget, escapedLength))}` : ''
          } ${slackLink(item.link, LINK_LABEL)}`,
        SLACK_SECTION_LIMIT,
      ),
    ),
  );
  const blocks = [context(`*${escapeMrkdwn(botName)}*`), section(`*${escapeMrkdwn(content.header)}*`), ...items];
  if (content.more > 0) blocks.push(context(escapeMrkdwn(moreLine(content.more))));
  return { text: escapeMrkdwn(content.header), blocks };
}

/** A system notice: its own header and footer line, never a custom template, which is written for alerts. */
export function slackNoticePayload(message: SystemNotice, botName: string): SlackPayload {
  const content = noticeContent(message.notice);
  const header = `*${escapeMrkdwn(content.header)}*`;
  const subject = escapeMrkdwn(content.subject);
  const text = fitRendered(content.body, SLACK_SECTION_LIMIT, (body) => joinSections([[header, subject], [escapeMrkdwn(body)]]));
  return {
    text: escapeMrkdwn(content.subject ? `${content.header} · ${content.subject}` : content.header),
    blocks: [context(`*${escapeMrkdwn(botName)}*`), section(text), context(escapeMrkdwn(content.footer))],
  };
}
