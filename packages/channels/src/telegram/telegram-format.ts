import type { AlertDigest, AlertPost, SystemNotice } from '../alert';
import { cardContent, digestContent, joinSections, LINK_LABEL, moreLine, plainCard } from '../card-content';
import { noticeContent, plainNotice } from '../notice-content';
import { effectiveTemplate, renderTemplate } from '../template';
import { fitList, fitRendered, fitText } from '../text-fit';

/*
 * Telegram Bot API sendMessage: `text` is 1–4,096 characters after entity parsing. In HTML mode every
 * literal <, > and & must be written &lt; &gt; &amp; (and " as &quot; inside an attribute); nothing else is
 * special, so # $ _ pass through. Supported named entities are only &lt; &gt; &amp; &quot;.
 */
export const TELEGRAM_TEXT_LIMIT = 4096;

export interface TelegramText {
  text: string;
  html: boolean;
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

export function telegramAlertText(alert: AlertPost, customTemplate: string): TelegramText {
  const template = effectiveTemplate(customTemplate, alert);
  // A custom template is sent as plain text: the user writes it, so nothing in it can break parsing.
  if (template !== '') return { text: renderTemplate(template, alert, { maxLength: TELEGRAM_TEXT_LIMIT }), html: false };
  const card = cardContent(alert);
  const byline = card.byline
    ? `<b>${escapeHtml(card.byline.handle)}</b>${card.byline.name ? ` · ${escapeHtml(card.byline.name)}` : ''}`
    : '';
  const text = fitRendered(
    card.body,
    TELEGRAM_TEXT_LIMIT,
    (body) =>
      joinSections([
        [`<b>${escapeHtml(card.header)}</b>`, byline],
        [card.quoted ? `<blockquote>${escapeHtml(body)}</blockquote>` : escapeHtml(body)],
        [htmlLink(card.link, LINK_LABEL)],
      ]),
    visibleLength,
  );
  return { text, html: true };
}

/** The same card without markup, for the one resend after Telegram fails to parse the HTML. */
export function telegramPlainAlertText(alert: AlertPost, customTemplate: string): TelegramText {
  const template = effectiveTemplate(customTemplate, alert);
  if (template !== '') return telegramAlertText(alert, template);
  const card = cardContent(alert);
  return { text: fitRendered(card.body, TELEGRAM_TEXT_LIMIT, (body) => plainCard(card, body)), html: false };
}

export function telegramDigestText(digest: AlertDigest, html: boolean): TelegramText {
  const content = digestContent(digest);
  const escape = html ? escapeHtml : (text: string) => text;
  const measure = html ? visibleLength : (text: string) => text.length;
  const text = fitList(
    (budget) => {
      const lines = content.items.map((item) => {
        const source = html ? `<b>${escapeHtml(item.source)}</b>` : item.source;
        const link = html ? htmlLink(item.link, LINK_LABEL) : item.link;
        return `${source} · ${escape(item.lead)}${item.text ? `: ${escape(fitText(item.text, budget))}` : ''} ${link}`;
      });
      if (content.more > 0) lines.push(escape(moreLine(content.more)));
      return joinSections([[html ? `<b>${escapeHtml(content.header)}</b>` : content.header], lines]);
    },
    TELEGRAM_TEXT_LIMIT,
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
