export { isoInstant } from './iso-instant';
