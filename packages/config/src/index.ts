export { loadConfig, configSchema, ConfigError, envFlag, envPort, requiredSecretsKey } from './config';
export type { AppConfigSchema, Config } from './config';
