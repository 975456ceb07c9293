// The notifier's public entry: what a process that embeds a notifier replica needs. src/main.ts composes the
// app itself from the environment; everything else in src/ is internal.
export { startNotifier } from './start-notifier';
// The environment src/main.ts reads (docs/CONFIGURATION.md is rendered from it).
export { notifierConfig } from './notifier-config';
export type { NotifierDeps, RunningNotifier } from './start-notifier';
export type { NotifierOptions, PaceRule, PaceRules } from './notifier-options';
