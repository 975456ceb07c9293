/**
 * Length helpers shared by the formatters. Platform limits are counted here in UTF-16 code units
 * (`string.length`), which is never less than the characters or code points the platforms count, so a
 * message that fits here fits there.
 */

export const ELLIPSIS = '…';

export type Measure = (text: string) => number;

const plainLength: Measure = (text) => text.length;

/**
 * The longest prefix of `text` (whole code points, so no emoji is split) that, with an ellipsis appended,
 * measures at most `budget`. `measure` sees the text as it will be rendered (escaped, quoted), so trimming
 * accounts for escaping growth. Returns `text` unchanged when it already fits.
 */
export function fitText(text: string, budget: number, measure: Measure = plainLength): string {
  if (measure(text) <= budget) return text;
  if (budget <= 0) return '';
  const points = Array.from(text);
  const candidate = (count: number) => `${points.slice(0, count).join('').trimEnd()}${ELLIPSIS}`;
  let low = 0;
  let high = points.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (measure(candidate(middle)) <= budget) low = middle;
    else high = middle - 1;
  }
  const best = candidate(low);
  return measure(best) <= budget ? best : '';
}

/**
 * Renders a message around `text`, trimming only `text` until the whole rendering measures at most `limit`.
 * Everything else `render` adds (header, author, link) is kept whole.
 */
export function fitRendered(
  text: string,
  limit: number,
  render: (text: string) => string,
  measure: Measure = plainLength,
): string {
  return render(fitText(text, limit, (candidate) => measure(render(candidate))));
}

/** Text budgets tried, longest first, when a list must fit a limit (digests). */
const LINE_TEXT_BUDGETS = [140, 100, 60, 30, 0];

/**
 * Renders a list with the longest per-item text budget whose result measures at most `limit`. The fixed
 * parts of each item (source, author, link) are never trimmed; if even a zero budget does not fit, the
 * zero-budget rendering is returned and the caller's last-resort cut applies.
 */
export function fitList(render: (textBudget: number) => string, limit: number, measure: Measure = plainLength): string {
  let rendered = '';
  for (const budget of LINE_TEXT_BUDGETS) {
    rendered = render(budget);
    if (measure(rendered) <= limit) return rendered;
  }
  return rendered;
}

/** Collapses line breaks and runs of spaces: digest lines are one line per alert. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
