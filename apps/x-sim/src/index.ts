// The x-sim app's public entry: the environment src/main.ts reads (docs/CONFIGURATION.md is rendered from it).
// The simulator itself is @hashwatch/x-simulator.
export { envSchema } from './x-sim-config';
