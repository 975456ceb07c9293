// The admin CLI's public entry: the environment src/main.ts reads (docs/CONFIGURATION.md is rendered from it).
export { adminConfigSchema } from './admin-config';
