import { SelectField } from '../../components/Field';

const FILTERS = [
  ['all', 'Hashtags and accounts'],
  ['hashtags', 'Hashtags only'],
  ['accounts', 'Accounts only'],
] as const;

export interface Scope {
  hashtags: string[];
  accounts: string[];
  source_filter: 'all' | 'hashtags' | 'accounts';
}

interface ScopePickerProps {
  scope: Scope;
  /** The account's sources, bare (`btc`, `alice`). */
  hashtags: string[];
  accounts: string[];
  onChange: (scope: Scope) => void;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const toggle = (list: string[], name: string, on: boolean) => (on ? [...list, name] : list.filter((item) => !same(item, name)));
const has = (list: string[], name: string) => list.some((item) => same(item, name));

/** The account's sources and the scoped ones, each once whatever its case (the API stores scopes lowercased). */
function choices(sources: string[], scoped: string[]): string[] {
  const all: string[] = [];
  for (const name of [...sources, ...scoped]) if (!has(all, name)) all.push(name);
  return all;
}

/** Which sources reach the channel: none picked means all of them; then the source filter. */
export function ScopePicker({ scope, hashtags, accounts, onChange }: ScopePickerProps) {
  // A scoped source the account no longer watches stays listed, so saving does not drop it silently.
  const tagChoices = choices(hashtags, scope.hashtags);
  const accountChoices = choices(accounts, scope.accounts);
  return (
    <fieldset className="scope">
      <legend>Sources sent here</legend>
      <small>None picked: every source of the account.</small>
      <div className="choices">
        {tagChoices.map((tag) => (
          <label key={`#${tag}`}>
            <input type="checkbox" checked={has(scope.hashtags, tag)} onChange={(event) => onChange({ ...scope, hashtags: toggle(scope.hashtags, tag, event.currentTarget.checked) })} />
            #{tag}
          </label>
        ))}
        {accountChoices.map((name) => (
          <label key={`@${name}`}>
            <input type="checkbox" checked={has(scope.accounts, name)} onChange={(event) => onChange({ ...scope, accounts: toggle(scope.accounts, name, event.currentTarget.checked) })} />
            @{name}
          </label>
        ))}
        {tagChoices.length + accountChoices.length === 0 ? <small>Add tracks or accounts first to pick among them.</small> : null}
      </div>
      <SelectField label="Source filter" value={scope.source_filter} options={FILTERS}
        onChange={(event) => onChange({ ...scope, source_filter: event.currentTarget.value as Scope['source_filter'] })} />
    </fieldset>
  );
}
