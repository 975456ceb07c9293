export { createTestDatabase } from './test-database';
export { adminUrl, databaseUrlFor, baseDatabaseUrl } from './database-urls';
export type { TestDatabase } from './test-database';
export { createQueuePrefix, deletePrefixKeys } from './queue-prefix';
export { useTestEnvironment } from './test-environment';
export type { TestEnvironment } from './test-environment';
export { waitFor } from './wait-for';
export { captureLogger } from './capture-logger';
