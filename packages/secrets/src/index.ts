export { createCipher, generateSecretsKey, SecretsError } from './cipher';
export type { Cipher } from './cipher';
export { resealSecrets, SEALED_COLUMNS, SecretsKeyMismatchError, verifySecretsKey } from './secrets-key-check';
export type { SqlQuery } from './secrets-key-check';
export { hashApiKey, generateApiKey, newId, newIds, randomToken } from './tokens';
export type { IdPrefix } from './tokens';
