export type { components, operations, paths } from './generated/schema';
