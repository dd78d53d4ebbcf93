import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = import.meta.dirname;

/**
 * The console's build: a single-page app served by the controller from web-admin/dist
 * (server/console/). Asset names carry their content hash, so the controller can let browsers
 * cache them for a year; the manifest tells the budget check which chunks the first page loads.
 */
export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  // No dev-server-only features are relied on: the controller serves the production build.
  build: {
    outDir: process.env.WRTFLEET_CONSOLE_OUT_DIR ?? path.join(root, 'dist'),
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    target: 'es2022',
    assetsDir: 'assets',
    // Inlined assets would be data: URLs in scripts and styles; files keep the CSP simple.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rollupOptions: {
      output: {
        entryFileNames: 'assets/[name]-[hash].js',
        chunkFileNames: 'assets/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
    },
  },
  logLevel: 'warn',
});
