// What the dev script itself prints: its lines start with `dev`, in colour only on a terminal without
// NO_COLOR, so CI logs and pipes stay plain text.
const color = process.stdout.isTTY && !process.env.NO_COLOR;

export const paint = (code, text) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
export const say = (line) => process.stdout.write(`${paint('2', 'dev')} ${line}\n`);
export const warn = (line) => process.stderr.write(`${paint('33', 'dev')} ${line}\n`);

/** The URL with any password replaced, safe to print. */
export function redactUrl(value) {
  try {
    const url = new URL(value);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '<unparseable url>';
  }
}
