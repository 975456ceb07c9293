export { loadConfig, configSchema, ConfigError, envFlag, envPort, requiredSecretsKey, redisClusterNodes, redisTargetOf } from './config';
export type { AppConfigSchema, Config, RedisClusterNode, RedisTarget } from './config';
