import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compressedCopies } from './build/compressed-copies.ts';
import { shellBudget } from './build/shell-budget.ts';

// The dev server proxies the API of a service started with `npm run dev` (or API_URL).
const api = process.env.API_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  // The service serves the build at /admin (src/modules/console).
  base: '/admin/',
  // The budget for the first load: 250 KB of gzipped JavaScript. The service sends the
  // brotli and gzip copies to browsers that take them.
  plugins: [react(), shellBudget(250 * 1024), compressedCopies()],
  resolve: {
    // The SDK's sources, so the console never waits on a separate SDK build.
    alias: { '@platform-api/sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Hashed names: the service caches /admin/assets/* for a year.
    assetsDir: 'assets',
    reportCompressedSize: false,
  },
  server: {
    proxy: {
      '/v1': { target: api, ws: true, changeOrigin: false },
      '/health': { target: api },
    },
  },
});
