// The gateway's public entry: what a process that embeds the API (bench/) needs. src/main.ts composes the app
// itself from the environment and listens; everything else in src/ is internal.
export { createApp } from './app';
// The environment src/main.ts reads (docs/CONFIGURATION.md is rendered from it).
export { gatewayConfigSchema } from './gateway-config';
export type { GatewayDeps } from './deps';
export { Authenticator } from './middleware/authenticate';
export { errorHandler } from './middleware/error-handler';
// The feed's read path, for measuring it without HTTP.
export { postCursor } from './routes/posts/post-cursor';
export { listPosts } from './routes/posts/posts.service';
// Request measurement and GET /metrics, for measuring their cost.
export { createGatewayMetrics, measureRequests, serveMetrics } from './metrics/gateway-metrics';
