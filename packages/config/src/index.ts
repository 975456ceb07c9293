export { loadConfig, configSchema, ConfigError } from './config';
export type { Config } from './config';
