import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  resolve: {
    // Workspace code from source: one module graph, tree-shaken with the rest.
    alias: {
      '@hashwatch/sdk': fileURLToPath(new URL('../../packages/sdk/src/index.ts', import.meta.url)),
      // The notifier's own template renderer (pure, no Node imports), so the preview is what a channel receives.
      '@hashwatch/channels/template': fileURLToPath(new URL('../../packages/channels/src/template.ts', import.meta.url)),
      // The API's own reading of a webhook's platform and its notices default (pure, no Node imports).
      '@hashwatch/channels/resolve-format': fileURLToPath(new URL('../../packages/channels/src/resolve-format.ts', import.meta.url)),
    },
  },
  build: {
    outDir: 'dist',
    // The gateway serves /assets/* as immutable: every file there is named by its content hash.
    assetsDir: 'assets',
    sourcemap: false,
  },
  server: {
    // `npm run dev -w @hashwatch/dashboard`: the API of a gateway running on :3000 (API_URL to change it). The
    // gateway refuses cross-site sign-ins by their Origin; through this proxy the page and the API are one site, so
    // the Origin is rewritten to the gateway's own.
    proxy: {
      '/v1': {
        target: process.env.API_URL ?? 'http://localhost:3000',
        configure: (proxy) => proxy.on('proxyReq', (request) => request.setHeader('origin', process.env.API_URL ?? 'http://localhost:3000')),
      },
    },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test-setup.ts'],
    projects: [
      // Pure logic and components that need no server.
      { extends: true, test: { name: 'unit', exclude: ['src/**/*.gateway.test.{ts,tsx}', '**/node_modules/**'] } },
      {
        // Pages and hooks against the real gateway: built, started once per run on a database and queue prefix of
        // the run's own (src/test-support/gateway-setup.ts); the page's fetch reaches it like a browser would.
        extends: true,
        test: {
          name: 'gateway',
          include: ['src/**/*.gateway.test.{ts,tsx}'],
          globalSetup: ['./src/test-support/gateway-setup.ts'],
          setupFiles: ['./src/test-support/browser-fetch.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
