export { createCipher, generateSecretsKey, SecretsError } from './cipher';
export type { Cipher } from './cipher';
export { hashApiKey, generateApiKey, newId, newIds, randomToken } from './tokens';
export type { IdPrefix } from './tokens';
