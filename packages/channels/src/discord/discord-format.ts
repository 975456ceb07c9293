import type { AlertDigest, AlertPost, SystemNotice } from '../alert';
import {
  cardContent,
  digestContent,
  EDITED_LABEL,
  fitDigest,
  joinSections,
  LINK_LABEL,
  moreLine,
  QUOTED_LINK_LABEL,
  QUOTING_LABEL,
  quoteLines,
  type CardContent,
} from '../card-content';
import { noticeContent } from '../notice-content';
import { fitParts, type BodyPart } from '../post-body';
import { effectiveTemplate, renderTemplate } from '../template';
import { fitRendered, fitText } from '../text-fit';

/*
 * Discord execute-webhook limits (Discord's Execute Webhook and embed limits documentation): `content` ≤ 2,000
 * characters; `username` ≤ 80 and must not contain "discord" or "clyde"; ≤ 10 embeds; embed title ≤ 256,
 * description ≤ 4,096, field name ≤ 256 and value ≤ 1,024, footer text ≤ 2,048, and title + description +
 * field names and values + footer + author names ≤ 6,000 over all embeds of a message. Any violation is a 400.
 */
export const DISCORD_CONTENT_LIMIT = 2000;
export const DISCORD_TITLE_LIMIT = 256;
export const DISCORD_DESCRIPTION_LIMIT = 4096;
export const DISCORD_FIELD_VALUE_LIMIT = 1024;
export const DISCORD_EMBEDS_TOTAL_LIMIT = 6000;
export const DISCORD_USERNAME_LIMIT = 80;

const COLORS = { hashtag: 0x1d9bf0, account: 0x7856ff, engagement: 0xf91880, test: 0x00ba7c, digest: 0x1d9bf0 };
// Notices stand apart from every alert colour: amber while a condition holds, green once it resolved.
export const NOTICE_COLORS = { open: 0xffad1f, resolved: 0x17bf63 } as const;

export interface DiscordEmbedField {
  name: string;
  value: string;
  inline?: boolean;
}

export interface DiscordEmbed {
  title: string;
  url?: string;
  description: string;
  color: number;
  timestamp?: string;
  image?: { url: string };
  fields?: DiscordEmbedField[];
  footer?: { text: string };
}

export type DiscordPayload = {
  username: string;
  // Post text must never ping anyone (the webhook default parses user mentions).
  allowed_mentions: { parse: never[] };
} & ({ embeds: DiscordEmbed[] } | { content: string });

// Characters that format text anywhere in a line: bold, italics, underline, strikethrough, spoilers, code, and
// the brackets of a masked link (so post text can never forge "[label](url)").
const INLINE_MARKUP = /[\\*_~`|[\]]/g;
// "<" that would start a mention, channel, emoji, timestamp or command tag (<@1>, <#1>, <:e:1>, <t:1>, </c:1>).
const TAG_START = /<(?=[@#:/]|a:|t:|id:)/g;

/**
 * Post text as Discord should show it, literally: every markdown character that could format it is
 * backslash-escaped; at the start of a line also quote, heading and list markers. `&`, `<3` and `a > b` mean
 * nothing to Discord and stay as written.
 */
export function escapeMarkdown(text: string, atLineStart = true): string {
  return text
    .split('\n')
    .map((line, index) => {
      const escaped = line.replace(INLINE_MARKUP, '\\$&').replace(TAG_START, '\\<');
      if (index === 0 && !atLineStart) return escaped;
      return escaped.replace(/^(\s*)([>#+-])/, '$1\\$2').replace(/^(\s*\d+)\.(?=\s)/, '$1\\.');
    })
    .join('\n');
}

/** The size Discord counts toward the 6,000 of a message: text fields measured after trimming white space. */
export function embedSize(embed: DiscordEmbed): number {
  const texts = [embed.title, embed.description, embed.footer?.text, ...(embed.fields ?? []).flatMap((field) => [field.name, field.value])];
  return texts.reduce((sum, text) => sum + (text ?? '').trim().length, 0);
}

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

/** Parentheses would end a markdown link early; the label is escaped like any text. */
function markdownLink(label: string, url: string): string {
  return `[${escapeMarkdown(label, false)}](${url.replace(/\(/g, '%28').replace(/\)/g, '%29')})`;
}

/** The body with each link as `[display_url](expanded_url)`; text escaped, aware of where lines start. */
function renderParts(parts: readonly BodyPart[]): string {
  let atLineStart = true;
  return parts
    .map((part) => {
      if (part.kind === 'link') {
        atLineStart = false;
        return markdownLink(part.label, part.url);
      }
      const text = escapeMarkdown(part.text, atLineStart);
      atLineStart = part.text.endsWith('\n');
      return text;
    })
    .join('');
}

function quotedField(card: CardContent): DiscordEmbedField | null {
  const quote = card.quotedPost;
  if (!quote) return null;
  const author = `**${escapeMarkdown(quote.handle, false)}**${quote.name ? ` · ${escapeMarkdown(quote.name, false)}` : ''}`;
  const link = markdownLink(QUOTED_LINK_LABEL, quote.url);
  const render = (text: string) => joinSections([[author, escapeMarkdown(text), link]]);
  return { name: QUOTING_LABEL, value: fitRendered(quote.text, DISCORD_FIELD_VALUE_LIMIT, render) };
}

function payload(botName: string, body: { embeds: DiscordEmbed[] } | { content: string }): DiscordPayload {
  return { username: discordUsername(botName), ...body, allowed_mentions: { parse: [] } };
}

export function discordAlertPayload(alert: AlertPost, botName: string, customTemplate: string): DiscordPayload {
  const template = effectiveTemplate(customTemplate, alert);
  if (template !== '') {
    // Values keep their formatting characters, but never form a masked link: "[", "]" and backslash are escaped.
    const escape = (value: string) => value.replace(/[\\[\]]/g, '\\$&');
    return payload(botName, { content: renderTemplate(template, alert, { maxLength: DISCORD_CONTENT_LIMIT, escape }) });
  }
  const card = cardContent(alert, { showImage: true });
  const byline = card.byline
    ? [`**${escapeMarkdown(card.byline.handle, false)}**`, escapeMarkdown(card.byline.name, false)].filter((part) => part !== '').join(' · ')
    : '';
  const render = (parts: readonly BodyPart[]) => {
    const body = renderParts(parts);
    return joinSections([[byline], [card.quoted ? quoteLines(body, '> ') : body], [markdownLink(LINK_LABEL, card.link)]]);
  };
  const quoted = quotedField(card);
  const embed: DiscordEmbed = {
    title: fitText(card.header, DISCORD_TITLE_LIMIT),
    url: card.link,
    description: '',
    color: COLORS[alert.test ? 'test' : alert.type],
    timestamp: alert.posted_at ?? alert.detected_at,
    ...(card.image ? { image: { url: card.image.url } } : {}),
    ...(quoted ? { fields: [quoted] } : {}),
    ...(card.edited ? { footer: { text: EDITED_LABEL } } : {}),
  };
  // The description gets what the 6,000 of the whole message leaves, up to its own 4,096.
  const budget = Math.min(DISCORD_DESCRIPTION_LIMIT, DISCORD_EMBEDS_TOTAL_LIMIT - embedSize(embed));
  embed.description = render(fitParts(card.parts, budget, (parts) => render(parts).length));
  return payload(botName, { embeds: [embed] });
}

export function discordDigestPayload(digest: AlertDigest, botName: string): DiscordPayload {
  const content = digestContent(digest);
  const description = fitDigest(content, Math.min(DISCORD_DESCRIPTION_LIMIT, DISCORD_EMBEDS_TOTAL_LIMIT - content.header.length), (listed, budget) => {
    const lines = listed.items.map((item) => {
      const text = item.text ? `: ${escapeMarkdown(fitText(item.text, budget, (candidate) => escapeMarkdown(candidate, false).length), false)}` : '';
      return `**${escapeMarkdown(item.source, false)}** · ${escapeMarkdown(item.lead, false)}${text} ${markdownLink(LINK_LABEL, item.link)}`;
    });
    if (listed.more > 0) lines.push(moreLine(listed.more));
    return lines.join('\n');
  });
  const embed: DiscordEmbed = {
    title: fitText(content.header, DISCORD_TITLE_LIMIT),
    description,
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
