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

/** Runs the step `fn`, saying when it starts and, once it is done, how many seconds it took. */
export async function timed(name, fn, { log = say, now = Date.now } = {}) {
  const startedAt = now();
  log(`${name} started`);
  const result = await fn();
  log(`${name} done in ${Math.round((now() - startedAt) / 1000)} s`);
  return result;
}
