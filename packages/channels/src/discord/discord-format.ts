import type { AlertDigest, AlertPost, SystemNotice } from '../alert';
import { cardContent, digestContent, joinSections, LINK_LABEL, moreLine, quoteLines } from '../card-content';
import { noticeContent } from '../notice-content';
import { effectiveTemplate, renderTemplate } from '../template';
import { fitList, fitRendered, fitText } from '../text-fit';

/*
 * Discord execute-webhook limits (Discord's Execute Webhook and embed limits documentation): `content` ≤ 2,000 characters; `username` ≤ 80 and must not
 * contain "discord" or "clyde"; ≤ 10 embeds; embed title ≤ 256, description ≤ 4,096, and title +
 * description + fields + footer + author names ≤ 6,000 over all embeds. Any violation is a 400.
 */
export const DISCORD_CONTENT_LIMIT = 2000;
export const DISCORD_TITLE_LIMIT = 256;
export const DISCORD_DESCRIPTION_LIMIT = 4096;
export const DISCORD_USERNAME_LIMIT = 80;

const COLORS = { hashtag: 0x1d9bf0, account: 0x7856ff, engagement: 0xf91880, test: 0x00ba7c, digest: 0x1d9bf0 };
// Notices stand apart from every alert colour: amber while a condition holds, green once it resolved.
export const NOTICE_COLORS = { open: 0xffad1f, resolved: 0x17bf63 } as const;

export interface DiscordEmbed {
  title: string;
  url?: string;
  description: string;
  color: number;
  timestamp?: string;
}

export type DiscordPayload = {
  username: string;
  // Post text must never ping anyone (the webhook default parses user mentions).
  allowed_mentions: { parse: never[] };
} & ({ embeds: DiscordEmbed[] } | { content: string });

/** A bot name Discord accepts: without "discord"/"clyde" (any case), at most 80 characters, never empty. */
export function discordUsername(botName: string): string {
  let name = botName;
  for (let previous = ''; previous !== name; ) {
    previous = name;
    name = name.replace(/discord|clyde/gi, '');
  }
  name = name.replace(/\s+/g, ' ').trim();
  return Array.from(name).slice(0, DISCORD_USERNAME_LIMIT).join('').trim() || 'Hashwatch';
}

/** Parentheses would end a markdown link early. */
function markdownLink(label: string, url: string): string {
  return `[${label}](${url.replace(/\(/g, '%28').replace(/\)/g, '%29')})`;
}

function payload(botName: string, body: { embeds: DiscordEmbed[] } | { content: string }): DiscordPayload {
  return { username: discordUsername(botName), ...body, allowed_mentions: { parse: [] } };
}

export function discordAlertPayload(alert: AlertPost, botName: string, customTemplate: string): DiscordPayload {
  const template = effectiveTemplate(customTemplate, alert);
  if (template !== '') {
    return payload(botName, { content: renderTemplate(template, alert, { maxLength: DISCORD_CONTENT_LIMIT }) });
  }
  const card = cardContent(alert);
  const byline = card.byline ? `**${card.byline.handle}**${card.byline.name ? ` · ${card.byline.name}` : ''}` : '';
  const description = fitRendered(card.body, DISCORD_DESCRIPTION_LIMIT, (body) =>
    joinSections([[byline], [card.quoted ? quoteLines(body, '> ') : body], [markdownLink(LINK_LABEL, card.link)]]),
  );
  const embed: DiscordEmbed = {
    title: fitText(card.header, DISCORD_TITLE_LIMIT),
    url: card.link,
    description,
    color: COLORS[alert.test ? 'test' : alert.type],
    timestamp: alert.posted_at ?? alert.detected_at,
  };
  return payload(botName, { embeds: [embed] });
}

export function discordDigestPayload(digest: AlertDigest, botName: string): DiscordPayload {
  const content = digestContent(digest);
  const description = fitList((budget) => {
    const lines = content.items.map(
      (item) =>
        `**${item.source}** · ${item.lead}${item.text ? `: ${fitText(item.text, budget)}` : ''} ${markdownLink(LINK_LABEL, item.link)}`,
    );
    if (content.more > 0) lines.push(moreLine(content.more));
    return lines.join('\n');
  }, DISCORD_DESCRIPTION_LIMIT);
  const embed: DiscordEmbed = {
    title: content.header,
    description: fitText(description, DISCORD_DESCRIPTION_LIMIT),
    color: COLORS.digest,
  };
  return payload(botName, { embeds: [embed] });
}

/** A system notice: its own card (title, colour), never a custom template, which is written for alerts. */
export function discordNoticePayload(message: SystemNotice, botName: string): DiscordPayload {
  const content = noticeContent(message.notice);
  const subject = content.subject ? `**${content.subject}**` : '';
  const description = fitRendered(content.body, DISCORD_DESCRIPTION_LIMIT, (body) => joinSections([[subject], [body], [`*${content.footer}*`]]));
  const embed: DiscordEmbed = {
    title: fitText(content.header, DISCORD_TITLE_LIMIT),
    description,
    color: NOTICE_COLORS[message.notice.state],
    timestamp: content.timestamp,
  };
  return payload(botName, { embeds: [embed] });
}
