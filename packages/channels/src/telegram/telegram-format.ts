import type { AlertDigest, AlertPost, SystemNotice } from '../alert';
import type { MessageForm } from '../channel-adapter';
import {
  cardContent,
  digestContent,
  EDITED_LABEL,
  fitDigest,
  joinSections,
  LINK_LABEL,
  moreLine,
  plainCard,
  QUOTED_LINK_LABEL,
  QUOTING_LABEL,
  type CardContent,
} from '../card-content';
import { noticeContent, plainNotice } from '../notice-content';
import { fitCard, firstLink, type BodyPart } from '../post-body';
import { effectiveTemplate, renderTemplate } from '../template';
import { fitRendered, fitText } from '../text-fit';

/*
 * Telegram Bot API: sendMessage `text` is 1–4,096 characters and sendPhoto `caption` 0–1,024 characters, both
 * counted after entity parsing. In HTML mode every literal <, > and & must be written &lt; &gt; &amp; (and " as
 * &quot; inside an attribute); nothing else is special, so # $ _ pass through. Supported named entities are
 * only &lt; &gt; &amp; &quot;.
 */
export const TELEGRAM_TEXT_LIMIT = 4096;
export const TELEGRAM_CAPTION_LIMIT = 1024;

export interface TelegramText {
  text: string;
  html: boolean;
}

/** One alert as Telegram gets it: a photo with the card as its caption, or a text message. */
export interface TelegramAlert extends TelegramText {
  /** sendPhoto with this photo URL and `text` as the caption; absent for a text message. */
  photo?: string;
  /** The link a text message previews (the post's first link); absent for Telegram's own choice. */
  previewUrl?: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, '&quot;');
}

/**
 * Length as Telegram counts it, after entity parsing: tags drop out and each entity is one character.
 * Exact for HTML built here, where every literal < and & is escaped.
 */
export function visibleLength(html: string): number {
  return html.replace(/<[^>]*>/g, '').replace(/&(?:lt|gt|amp|quot);/g, '_').length;
}

function htmlLink(url: string, label: string): string {
  return `<a href="${escapeAttribute(url)}">${escapeHtml(label)}</a>`;
}

function renderParts(parts: readonly BodyPart[]): string {
  return parts.map((part) => (part.kind === 'text' ? escapeHtml(part.text) : htmlLink(part.url, part.label))).join('');
}

function htmlCard(card: CardContent): (parts: readonly BodyPart[], quoteText: string) => string {
  const byline = card.byline
    ? [`<b>${escapeHtml(card.byline.handle)}</b>`, escapeHtml(card.byline.name), card.edited ? `<i>${EDITED_LABEL}</i>` : '']
        .filter((part) => part !== '')
        .join(' · ')
    : '';
  const quote = card.quotedPost;
  const quoteAuthor = quote ? `${QUOTING_LABEL} <b>${escapeHtml(quote.handle)}</b>${quote.name ? ` · ${escapeHtml(quote.name)}` : ''}` : '';
  return (parts, quoteText) =>
    joinSections([
      [`<b>${escapeHtml(card.header)}</b>`, byline],
      [card.quoted ? `<blockquote>${renderParts(parts)}</blockquote>` : renderParts(parts)],
      quote ? [quoteAuthor, quoteText === '' ? '' : `<blockquote>${escapeHtml(quoteText)}</blockquote>`, htmlLink(quote.url, QUOTED_LINK_LABEL)] : [],
      [htmlLink(card.link, LINK_LABEL)],
    ]);
}

/**
 * The default card of one alert, in HTML or (for the resend after a parse failure) plain. With `form.media` and
 * an image in the post, the card is the caption of that photo (1,024 characters); otherwise a text message
 * (4,096) that previews the post's first link. A custom template is always a plain text message: the user
 * writes it, so nothing in it can break parsing.
 */
export function telegramAlert(alert: AlertPost, customTemplate: string, form: MessageForm): TelegramAlert {
  const template = effectiveTemplate(customTemplate, alert);
  if (template !== '') return { text: renderTemplate(template, alert, { maxLength: TELEGRAM_TEXT_LIMIT }), html: false };
  const card = cardContent(alert, { showImage: form.media });
  const limit = card.image ? TELEGRAM_CAPTION_LIMIT : TELEGRAM_TEXT_LIMIT;
  const quoteText = card.quotedPost?.text ?? '';
  const text = form.markup
    ? fitCard(card.parts, quoteText, limit, htmlCard(card), visibleLength)
    : fitCard(card.parts, quoteText, limit, (parts, quote) => plainCard(card, parts, quote), (plain) => plain.length);
  if (card.image) return { text, html: form.markup, photo: card.image.url };
  const previewUrl = firstLink(card.parts);
  return previewUrl ? { text, html: form.markup, previewUrl } : { text, html: form.markup };
}

export function telegramDigestText(digest: AlertDigest, html: boolean): TelegramText {
  const content = digestContent(digest);
  const escape = html ? escapeHtml : (text: string) => text;
  const measure = html ? visibleLength : (text: string) => text.length;
  const text = fitDigest(
    content,
    TELEGRAM_TEXT_LIMIT,
    (listed, budget) => {
      const lines = listed.items.map((item) => {
        const source = html ? `<b>${escapeHtml(item.source)}</b>` : item.source;
        const link = html ? htmlLink(item.link, LINK_LABEL) : item.link;
        return `${source} · ${escape(item.lead)}${item.text ? `: ${escape(fitText(item.text, budget))}` : ''} ${link}`;
      });
      if (listed.more > 0) lines.push(escape(moreLine(listed.more)));
      return joinSections([[html ? `<b>${escapeHtml(listed.header)}</b>` : listed.header], lines]);
    },
    measure,
  );
  return { text, html };
}

/** A system notice in HTML (or plain, for the resend after a parse failure); never a custom template. */
export function telegramNoticeText(message: SystemNotice, html: boolean): TelegramText {
  const content = noticeContent(message.notice);
  if (!html) return { text: fitRendered(content.body, TELEGRAM_TEXT_LIMIT, (body) => plainNotice(content, body)), html: false };
  const text = fitRendered(
    content.body,
    TELEGRAM_TEXT_LIMIT,
    (body) =>
      joinSections([
        [`<b>${escapeHtml(content.header)}</b>`, escapeHtml(content.subject)],
        [escapeHtml(body)],
        [`<i>${escapeHtml(content.footer)}</i>`],
      ]),
    visibleLength,
  );
  return { text, html: true };
}
