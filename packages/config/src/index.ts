export { loadConfig, configSchema, ConfigError, envFlag, envPort, requiredSecretsKey, redisClusterNodes, redisTargetOf } from './config';
export type { AppConfigSchema, Config, RedisClusterNode, RedisTarget } from './config';
export { renderConfigReference } from './config-reference';
export type { ConfigReader } from './config-reference';
