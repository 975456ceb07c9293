import { z } from 'zod';
import type { ParameterError } from './problems';

/** Checks one query parameter's raw string and turns it into a value; messages follow X's wording. */
export interface Param<T> {
  schema: z.ZodType<T, string>;
  required?: boolean;
}

function param<T>(check: (value: string, name: string) => { ok: true; value: T } | { ok: false; message: string }, name: string, required = false): Param<T> {
  const schema = z.string().transform((value, ctx) => {
    const result = check(value, name);
    if (result.ok) return result.value;
    ctx.addIssue({ code: 'custom', message: result.message });
    return z.NEVER;
  });
  return { schema, required };
}

export function integerParam(name: string, min: number, max: number): Param<number> {
  return param((value) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value) || n < min || n > max) return { ok: false, message: `The \`${name}\` query parameter value [${value}] is not between ${min} and ${max}` };
    return { ok: true, value: n };
  }, name);
}

const SNOWFLAKE = /^[0-9]{1,19}$/;

export function snowflakeParam(name: string): Param<bigint> {
  return param((value) => {
    if (!SNOWFLAKE.test(value)) return { ok: false, message: `The \`${name}\` query parameter value [${value}] does not match ^[0-9]{1,19}$` };
    return { ok: true, value: BigInt(value) };
  }, name);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 time, as milliseconds. X works in whole seconds: the fraction is dropped. */
export function timeParam(name: string): Param<number> {
  return param((value) => {
    const ms = Date.parse(value);
    if (!RFC3339.test(value) || Number.isNaN(ms)) return { ok: false, message: `The \`${name}\` query parameter value [${value}] is not a valid RFC3339 date-time` };
    return { ok: true, value: Math.floor(ms / 1000) * 1000 };
  }, name);
}

/** A comma-separated list whose every value must be one of `allowed` (X's `explode: false` arrays). */
export function listParam(name: string, allowed: readonly string[], limits: { max?: number } = {}): Param<string[]> {
  return param((value) => {
    const items = value.split(',');
    const bad = items.find((item) => !allowed.includes(item));
    if (bad !== undefined) return { ok: false, message: `The \`${name}\` query parameter value [${bad}] is not one of [${allowed.join(',')}]` };
    if (limits.max !== undefined && items.length > limits.max) return { ok: false, message: `The \`${name}\` query parameter value has more than ${limits.max} items` };
    return { ok: true, value: [...new Set(items)] };
  }, name);
}

/** A comma-separated list whose every value matches `pattern`, 1 to `max` of them. */
export function patternListParam(name: string, pattern: RegExp, max: number, required = false): Param<string[]> {
  return param(
    (value) => {
      const items = value.split(',');
      const bad = items.find((item) => !pattern.test(item));
      if (bad !== undefined) return { ok: false, message: `The \`${name}\` query parameter value [${bad}] does not match ${pattern.source}` };
      if (items.length > max) return { ok: false, message: `The number of values in the \`${name}\` query parameter list [${items.length}] is not between 1 and ${max}` };
      return { ok: true, value: items };
    },
    name,
    required,
  );
}

export function stringParam(name: string, options: { required?: boolean; pattern?: RegExp } = {}): Param<string> {
  return param(
    (value) => {
      if (value === '') return { ok: false, message: `The \`${name}\` query parameter can not be empty` };
      if (options.pattern && !options.pattern.test(value)) return { ok: false, message: `The \`${name}\` query parameter value [${value}] does not match ${options.pattern.source}` };
      return { ok: true, value };
    },
    name,
    options.required,
  );
}

export function enumParam<T extends string>(name: string, values: readonly T[]): Param<T> {
  return param((value) => {
    if (!(values as readonly string[]).includes(value)) return { ok: false, message: `The \`${name}\` query parameter value [${value}] is not one of [${values.join(',')}]` };
    return { ok: true, value: value as T };
  }, name);
}

type Parsed<S extends Record<string, Param<unknown>>> = { [K in keyof S]?: S[K] extends Param<infer T> ? T : never };

/**
 * Validates a request's query against an endpoint's parameters. Like X it refuses unknown parameters,
 * repeated ones and missing required ones, and reports every bad parameter at once.
 */
export function parseParams<S extends Record<string, Param<unknown>>>(
  spec: S,
  query: Record<string, unknown>,
): { ok: true; value: Parsed<S> } | { ok: false; errors: ParameterError[] } {
  const errors: ParameterError[] = [];
  const value: Record<string, unknown> = {};
  const names = Object.keys(spec);
  for (const [key, raw] of Object.entries(query)) {
    const shown = Array.isArray(raw) ? raw.map(String) : [String(raw)];
    const rule = spec[key];
    if (!rule) {
      errors.push({ parameters: { [key]: shown }, message: `The query parameter [${key}] is not one of [${names.join(',')}]` });
      continue;
    }
    if (typeof raw !== 'string') {
      errors.push({ parameters: { [key]: shown }, message: `The query parameter [${key}] was given more than once` });
      continue;
    }
    const parsed = rule.schema.safeParse(raw);
    if (parsed.success) value[key] = parsed.data;
    else errors.push({ parameters: { [key]: [raw] }, message: parsed.error.issues[0]?.message ?? `The \`${key}\` query parameter is invalid` });
  }
  for (const name of names) {
    if (spec[name]!.required && !(name in query)) errors.push({ parameters: { [name]: [] }, message: `The \`${name}\` query parameter can not be empty` });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as Parsed<S> };
}
