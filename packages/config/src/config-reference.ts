import type { z } from 'zod';
import { configSchema } from './config';

/** One process and the schema it reads its environment with (`configSchema.extend(...)`). */
export interface ConfigReader {
  readonly app: string;
  readonly schema: z.ZodObject;
}

interface Variable {
  readonly name: string;
  readonly shared: boolean;
  readonly description: string;
  /** Per app: the default it parses to, `undefined` when unset is allowed, `required` when it is not. */
  readonly defaults: Map<string, { value: unknown } | 'required'>;
}

const HEADER = `# Configuration

<!-- Rendered from the apps' zod environment schemas by \`npm run docs:config\`: change a field's .describe() text,
not this file. A test in packages/config fails when the two differ. -->

Every app parses its environment once at start-up with a zod schema: the shared one
(\`packages/config/src/config.ts\`), extended by the app's own (\`apps/<app>/src/*-config.ts\`). A variable that
does not parse stops the app with one line naming it; an empty value counts as unset.`;

/** What a field parses to when the variable is unset: its default, nothing, or an error (it is required). */
function defaultOf(field: z.ZodType): { value: unknown } | 'required' {
  const parsed = field.safeParse(undefined);
  return parsed.success ? { value: parsed.data } : 'required';
}

/** Every variable the readers declare, shared ones first, each with the apps reading it and their defaults. */
function collect(readers: readonly ConfigReader[]): Variable[] {
  const variables = new Map<string, Variable>();
  for (const [name, field] of Object.entries(configSchema.shape)) {
    variables.set(name, { name, shared: true, description: field.description ?? '', defaults: new Map() });
  }
  for (const reader of readers) {
    for (const [name, field] of Object.entries(reader.schema.shape) as [string, z.ZodType][]) {
      let variable = variables.get(name);
      if (!variable) {
        variable = { name, shared: false, description: field.description ?? '', defaults: new Map() };
        variables.set(name, variable);
      }
      variable.defaults.set(reader.app, defaultOf(field));
    }
  }
  return [...variables.values()];
}

const code = (value: unknown) => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The default column: one value, or each app's when they differ, and which apps require the variable. */
function renderDefault(variable: Variable): string {
  const required = [...variable.defaults].filter(([, value]) => value === 'required').map(([app]) => app);
  const values = new Map<string, string[]>();
  for (const [app, value] of variable.defaults) {
    if (value === 'required') continue;
    const shown = value.value === undefined ? 'none' : code(value.value);
    values.set(shown, [...(values.get(shown) ?? []), app]);
  }
  const parts = values.size === 1 ? [...values.keys()] : [...values].map(([shown, apps]) => `${shown} (${apps.join(', ')})`);
  if (required.length > 0) parts.push(`required by ${required.join(', ')}`);
  return parts.join('; ') || 'none';
}

function readBy(variable: Variable, apps: readonly string[]): string {
  const readers = apps.filter((app) => variable.defaults.has(app));
  return variable.shared && readers.length === apps.length ? 'every app' : readers.join(', ');
}

/** docs/CONFIGURATION.md: every variable the readers' schemas declare, its readers, default and description. */
export function renderConfigReference(readers: readonly ConfigReader[]): string {
  const apps = readers.map((reader) => reader.app);
  const variables = collect(readers);
  const table = (rows: Variable[]) => [
    '| variable | read by | default | meaning |',
    '|---|---|---|---|',
    ...rows.map((variable) => `| \`${variable.name}\` | ${readBy(variable, apps)} | ${cell(renderDefault(variable))} | ${cell(variable.description)} |`),
  ];
  return [
    HEADER,
    '',
    '## Shared by every app',
    '',
    `Declared once in \`packages/config/src/config.ts\` and parsed by every app (${apps.join(', ')}, and \`npm run db:migrate\`), whether or not it uses them; an app may make one required.`,
    '',
    ...table(variables.filter((variable) => variable.shared)),
    '',
    '## Read by some apps',
    '',
    ...table(variables.filter((variable) => !variable.shared)),
    '',
  ].join('\n');
}
