// The alert inbox's public entry: the environment src/main.ts reads (docs/CONFIGURATION.md is rendered from it).
export { inboxConfig } from './alert-inbox-config';
