import type { NextFunction, Request, Response } from 'express';
import { AppError, isAppError } from '@hashwatch/errors';
import type { Logger } from '@hashwatch/logger';
import { isPasswordHashingBusy } from '@hashwatch/secrets';
import { databaseUnavailable } from './database-errors';

interface BodyParserError {
  type?: string;
  status?: number;
}

function fromBodyParser(error: BodyParserError): AppError | undefined {
  // The password hashing line is full (a burst of sign-ins): the request can succeed unchanged a moment later.
  if (isPasswordHashingBusy(error)) return new AppError('unavailable', 'too many password checks are waiting; retry shortly', { retryAfterSeconds: error.retryAfterSeconds });
  switch (error.type) {
    case 'entity.too.large':
      return new AppError('payload_too_large', 'the body is over 64 KiB');
    case 'entity.parse.failed':
      return new AppError('invalid_request', 'body: not valid JSON');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('invalid_request', 'body: must be UTF-8 JSON');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new AppError('invalid_request', 'body: could not be read');
    default:
      return undefined;
  }
}

/** The one place errors become HTTP answers: `{error:{code,message}}`, never a stack trace. */
export function errorHandler(logger: Logger) {
  return function handleError(error: unknown, req: Request, res: Response, _next: NextFunction): void {
    const unavailable = isAppError(error) ? undefined : databaseUnavailable(error);
    const appError = isAppError(error) ? error : (fromBodyParser(error as BodyParserError) ?? unavailable);
    // Expected while PostgreSQL or its pooler restarts: a warning, not an error with a stack.
    if (unavailable) logger.warn('request failed: database unavailable', { method: req.method, path: req.path, error: error instanceof Error ? error.message : String(error) });
    if (!appError) {
      logger.error('request failed', { method: req.method, path: req.path, error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error) });
    }
    const answer = appError ?? new AppError('internal_error', 'an unexpected error occurred; it has been logged');
    if (answer.details.retryAfterSeconds !== undefined && !res.getHeader('Retry-After')) {
      res.setHeader('Retry-After', String(answer.details.retryAfterSeconds));
    }
    if (res.headersSent) return;
    res.status(answer.status).json({ error: { code: answer.code, message: answer.message } });
  };
}

export function notFound(req: Request): never {
  throw new AppError('not_found', `no route ${req.method} ${req.path}`);
}
