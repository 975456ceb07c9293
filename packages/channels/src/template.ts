import type { AlertPost } from './alert';
import { fitText } from './text-fit';

/** The template placeholders the API documents (`PUT /notifications`, `template`); anything else in braces stays as written. */
const PLACEHOLDER = /\{(source|author|name|text|url|hashtag|account)\}/g;

export interface TemplateOptions {
  /** Applied to every substituted value (not to the template's own text), e.g. Slack's mrkdwn escaping. */
  escape?: (value: string) => string;
  /** Platform limit on the rendered message; only the post text is trimmed to meet it. */
  maxLength?: number;
}

function values(alert: AlertPost, text: string): Record<string, string> {
  return {
    source: alert.source,
    author: alert.author,
    name: alert.author_name,
    text,
    url: alert.url,
    hashtag: alert.hashtag,
    account: alert.account,
  };
}

function substitute(template: string, map: Record<string, string>, escape: (value: string) => string): string {
  // One pass: a value that itself contains "{text}" is not expanded again.
  return template.replace(PLACEHOLDER, (_match, name: string) => escape(map[name] ?? ''));
}

/**
 * Renders a custom template. With `maxLength`, the `{text}` value is trimmed (with an ellipsis) so the
 * message fits and `{url}` stays whole. A template whose own text is longer than the limit is cut at the end.
 */
export function renderTemplate(template: string, alert: AlertPost, options: TemplateOptions = {}): string {
  const escape = options.escape ?? ((value: string) => value);
  const full = substitute(template, values(alert, alert.text), escape);
  const limit = options.maxLength;
  if (limit === undefined || full.length <= limit) return full;

  const textSlots = template.match(/\{text\}/g)?.length ?? 0;
  if (textSlots > 0) {
    const fixed = substitute(template, values(alert, ''), escape).length;
    const perSlot = Math.floor((limit - fixed) / textSlots);
    const text = fitText(alert.text, perSlot, (candidate) => escape(candidate).length);
    const fitted = substitute(template, values(alert, text), escape);
    if (fitted.length <= limit) return fitted;
  }
  return fitText(full, limit);
}

/**
 * The template to use for this alert: `template`, unless it renders to nothing but whitespace (say "{hashtag}"
 * for an account post), which every chat platform refuses as an empty message; then "" (the default card).
 */
export function effectiveTemplate(template: string, alert: AlertPost): string {
  if (template === '') return '';
  return substitute(template, values(alert, alert.text), (value) => value).trim() === '' ? '' : template;
}
