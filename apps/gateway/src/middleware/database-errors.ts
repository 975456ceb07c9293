import { AppError } from '@hashwatch/errors';

/** Seconds a client waits before retrying a request the database could not serve. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

// SQLSTATEs of a database that is restarting, overloaded, unreachable, or that gave up waiting (statement_timeout,
// lock_timeout, a conflict with a concurrent transaction): the request can succeed unchanged a moment later.
const TRANSIENT_SQLSTATES = new Set([
  '08000', '08001', '08003', '08004', '08006', '08P01', // connection exceptions (PgBouncer reports its own as 08P01)
  '53300', // too_many_connections
  '57P01', '57P02', '57P03', // admin_shutdown, crash_shutdown, cannot_connect_now
  '57014', // query_canceled: statement_timeout
  '55P03', // lock_not_available: lock_timeout
  '40001', '40P01', // serialization_failure, deadlock_detected
]);
// Node's socket errors when the server (or the pooler in front of it) is gone.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// pg's own messages: a connection dropped mid-query, and pg-pool's acquire timeout (connectionTimeoutMillis).
const DRIVER_MESSAGES = [/^Connection terminated/, /^timeout exceeded when trying to connect/, /^Client has encountered a connection error/];
// Prisma's codes for the same: P1001 unreachable, P1002/P1008 timed out, P1017 connection closed, P2024 pool timeout,
// P2034 write conflict or deadlock.
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2034']);

function isTransient(error: unknown, depth: number): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const { code, message, cause, meta } = error as { code?: unknown; message?: unknown; cause?: unknown; meta?: unknown };
  if (typeof code === 'string' && (TRANSIENT_SQLSTATES.has(code) || SOCKET_CODES.has(code) || PRISMA_CODES.has(code))) return true;
  if (typeof message === 'string' && DRIVER_MESSAGES.some((pattern) => pattern.test(message))) return true;
  // Prisma's driver adapter carries the driver's error as meta.driverAdapterError.cause (originalCode: the SQLSTATE).
  const adapter = (meta as { driverAdapterError?: { cause?: { originalCode?: unknown } } } | undefined)?.driverAdapterError;
  const originalCode = adapter?.cause?.originalCode;
  if (typeof originalCode === 'string' && TRANSIENT_SQLSTATES.has(originalCode)) return true;
  return isTransient(cause, depth + 1) || (adapter !== undefined && isTransient(adapter, depth + 1));
}

/**
 * A 503 `unavailable` with Retry-After for an error of a database that is away, overloaded or gave up waiting, so a
 * client retries instead of reading a 500 as a defect; undefined for any other error.
 */
export function databaseUnavailable(error: unknown): AppError | undefined {
  if (!isTransient(error, 0)) return undefined;
  return new AppError('unavailable', 'the database is busy or restarting; retry shortly', { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS });
}
