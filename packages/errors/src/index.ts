export { AppError, errorStatus, isAppError } from './app-error';
export type { ErrorCode } from './app-error';
