import type { InboxAlert } from './inbox-alert';
import type { InboxMail } from './mail-inbox';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

// http(s) only, so a mail cannot put a javascript: link on the page; punctuation that usually ends a
// sentence is left out of the link.
const LINK = /https?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/g;

/** `text` escaped for HTML, each http(s) URL in it a link that opens in a new tab. */
export function linkifiedHtml(text: string): string {
  let html = '';
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    const url = match[0];
    html += `${escapeHtml(text.slice(last, match.index))}<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(url)}</a>`;
    last = match.index + url.length;
  }
  return html + escapeHtml(text.slice(last));
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

function alertRows(alerts: readonly InboxAlert[]): string {
  const rows = alerts.map(
    (alert) => `<tr><td>${escapeHtml(alert.receivedAt)}</td><td>${escapeHtml(alert.format)}</td><td>${escapeHtml(alert.type)}</td>` +
      `<td>${alert.verified === null ? '' : alert.verified ? '✔' : '✘'}</td><td>${escapeHtml(alert.summary)}</td></tr>`,
  );
  return rows.join('\n') || '<tr><td colspan="5">No alerts yet.</td></tr>';
}

function mailRows(mails: readonly InboxMail[]): string {
  const rows = mails.map(
    (mail) => `<tr><td>${escapeHtml(mail.receivedAt)}</td><td>${escapeHtml(mail.from)}</td><td>${escapeHtml(mail.to)}</td>` +
      `<td>${escapeHtml(mail.subject)}</td><td class="body">${linkifiedHtml(mail.text)}</td></tr>`,
  );
  return rows.join('\n') || '<tr><td colspan="5">No mail yet.</td></tr>';
}

/** The inbox's page: the alerts, then the mail, newest first, every value escaped. */
export function inboxPage(alerts: readonly InboxAlert[], mails: readonly InboxMail[], capacity: number): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="3">
<title>Hashwatch alert inbox</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f5f5f5}
td.body{white-space:pre-wrap;overflow-wrap:anywhere}</style></head>
<body><h1>Hashwatch alert inbox</h1>
<p>${plural(alerts.length, 'alert')} and ${plural(mails.length, 'mail')}, newest first; the last ${capacity} of each are kept in memory. This page refreshes every 3 s. <a href="#mail">Mail</a></p>
<h2 id="alerts">Alerts</h2>
<table><thead><tr><th>received</th><th>format</th><th>type</th><th>signed</th><th>alert</th></tr></thead>
<tbody>
${alertRows(alerts)}
</tbody></table>
<h2 id="mail">Mail</h2>
<table><thead><tr><th>received</th><th>from</th><th>to</th><th>subject</th><th>text</th></tr></thead>
<tbody>
${mailRows(mails)}
</tbody></table></body></html>`;
}
