export { createCipher, generateSecretsKey, SecretsError } from './cipher';
export type { Cipher } from './cipher';
export { openVerifiedCipher, resealSecrets, SEALED_COLUMNS, SecretsKeyMismatchError, verifySecretsKey } from './secrets-key-check';
export type { SqlQuery } from './secrets-key-check';
export { hashApiKey, hashToken, generateApiKey, randomToken } from './tokens';
export { burnPasswordCheck, hashPassword, needsRehash, passwordHashingLoad, setPasswordHashingLimits, verifyPassword } from './passwords';
export { DEFAULT_HASHING_LIMITS, isPasswordHashingBusy, PasswordHashingBusyError } from './hashing-gate';
export type { HashingGateLimits } from './hashing-gate';
