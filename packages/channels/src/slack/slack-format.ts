import type { AlertDigest, AlertPost, SystemNotice } from '../alert';
import { cardContent, digestContent, joinSections, LINK_LABEL, moreLine, quoteLines } from '../card-content';
import { noticeContent } from '../notice-content';
import { effectiveTemplate, renderTemplate } from '../template';
import { fitList, fitRendered, fitText } from '../text-fit';

/*
 * Slack incoming-webhook and Block Kit limits: section text ≤ 3,000 characters, ≤ 50 blocks, message `text`
 * truncated past 40,000. App webhooks cannot override the username or icon, so the bot name is written
 * into the message as a context line. mrkdwn needs only & < > escaped; links are <url|label>.
 */
export const SLACK_SECTION_LIMIT = 3000;

export interface SlackTextObject {
  type: 'mrkdwn';
  text: string;
}

export type SlackBlock =
  | { type: 'section'; text: SlackTextObject }
  | { type: 'context'; elements: SlackTextObject[] };

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

/** Slack's "> " quote marker must stay literal, so the quoted text is escaped before it is added. */
function renderBody(body: string, quoted: boolean): string {
  return quoted ? quoteLines(escapeMrkdwn(body), '>') : escapeMrkdwn(body);
}

export function slackAlertPayload(alert: AlertPost, botName: string, customTemplate: string): SlackPayload {
  const template = effectiveTemplate(customTemplate, alert);
  const sender = context(`*${escapeMrkdwn(botName)}*`);
  if (template !== '') {
    const text = renderTemplate(template, alert, { escape: escapeMrkdwn, maxLength: SLACK_SECTION_LIMIT });
    return { text, blocks: [sender, section(text)] };
  }
  const card = cardContent(alert);
  const header = `*${escapeMrkdwn(card.header)}*`;
  const byline = card.byline
    ? `*${escapeMrkdwn(card.byline.handle)}*${card.byline.name ? ` · ${escapeMrkdwn(card.byline.name)}` : ''}`
    : '';
  const text = fitRendered(card.body, SLACK_SECTION_LIMIT, (body) =>
    joinSections([[header, byline], [renderBody(body, card.quoted)], [slackLink(card.link, LINK_LABEL)]]),
  );
  const fallback = escapeMrkdwn(card.byline ? `${card.header} · ${card.byline.handle}` : card.header);
  return { text: fallback, blocks: [sender, section(text)] };
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
