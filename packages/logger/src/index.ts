export { createLogger, redact } from './logger';
export type { Logger } from './logger';
