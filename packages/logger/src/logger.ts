import winston from 'winston';
import type Transport from 'winston-transport';

export type Logger = winston.Logger;

const SECRET_KEY = /(authorization|api[_-]?key|token|secret|password|totp|cookie|signature|^code$)/i;
// Values that carry a credential whatever field they sit in.
const SECRET_VALUES: [RegExp, string][] = [
  [/Bearer\s+[A-Za-z0-9._~+/=-]+/g, 'Bearer [redacted]'],
  [/\/bot\d+:[A-Za-z0-9_-]+/g, '/bot[redacted]'],
  [/\bhw_(live|test)_[A-Za-z0-9_-]+/g, 'hw_$1_[redacted]'],
  [/\bwhsec_[A-Za-z0-9+/=]+/g, 'whsec_[redacted]'],
  // Dashboard session cookies, 2FA sign-in tokens, password-reset tokens.
  [/\bhw([slr])_[A-Za-z0-9_-]+/g, 'hw$1_[redacted]'],
  // Stripe secret and restricted keys.
  [/\b(sk|rk)_(live|test)_[A-Za-z0-9]+/g, '$1_$2_[redacted]'],
  [/(discord(?:app)?\.com\/api(?:\/v\d+)?\/webhooks\/\d+\/)[A-Za-z0-9_-]+/g, '$1[redacted]'],
  [/(hooks\.slack\.com\/services\/)[A-Za-z0-9/]+/g, '$1[redacted]'],
];

// Something every pattern above needs, in one pass: most strings a log line holds (ids, routes, messages) carry none
// and skip the eight replacements, which were most of a request log line's cost (docs/BENCHMARKS.md, "The tail at
// 50 connections"). Keep it in step with SECRET_VALUES: the test runs every credential form through both.
const SECRET_MARKER = /Bearer|\/bot\d|\bhw_(?:live|test)_|\bwhsec_|\bhw[slr]_|\b(?:sk|rk)_(?:live|test)_|discord(?:app)?\.com\/api|hooks\.slack\.com\/services\//;

function redactString(value: string): string {
  if (!SECRET_MARKER.test(value)) return value;
  return SECRET_VALUES.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), value);
}

/** Returns a copy of `value` with secret-looking fields and credential-shaped strings replaced. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactString(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    return { name: value.name, message: redactString(value.message) };
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) && item !== null && item !== undefined && typeof item !== 'boolean' ? '[redacted]' : redact(item, depth + 1);
  }
  return out;
}

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    const value = info[key];
    info[key] = SECRET_KEY.test(key) && typeof value !== 'boolean' && value != null ? '[redacted]' : redact(value);
  }
  return info;
});

const LEVEL = Symbol.for('level');

/** One JSON-lines logger per service; children per job or request add fields. Secrets never reach a transport. */
export function createLogger(
  service: string,
  options: { level?: string; transports?: Transport[] } = {},
): Logger {
  // winston runs every format before its transports drop a disabled level, so a debug entry at level
  // info would still be redacted, stamped and serialised: drop it first.
  const enabledOnly = winston.format((info) => (logger.isLevelEnabled(String((info as { [LEVEL]?: string })[LEVEL] ?? info.level)) ? info : false));
  const logger: Logger = winston.createLogger({
    level: options.level ?? 'info',
    defaultMeta: { service },
    format: winston.format.combine(enabledOnly(), redactFormat(), winston.format.timestamp(), winston.format.json()),
    transports: options.transports ?? [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
  });
  return logger;
}
