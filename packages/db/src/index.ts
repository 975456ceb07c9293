export { createDatabase } from './database';
export type { Database } from './database';
export { migrate, seedPlans, listMigrations } from './migrate';
export type { MigrationResult } from './migrate';
export { PrismaClient, Prisma } from './generated/prisma/client';
export type * from './generated/prisma/client';
export { transaction, isPgError, PgErrorCode } from './transaction';
export { newId, newIds } from './ids';
export type { IdPrefix } from './ids';
