// Vite serves web/ in development (npm start) and bundles it into dist/ (npm run build).
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'web',
  base: './',  // dist/ works from any sub-path, e.g. embedded in a blog
  publicDir: false,
  build: { outDir: '../dist', emptyOutDir: true, target: 'es2022' },
  // Pre-bundle Plot up front so the first page load never reloads itself.
  optimizeDeps: { include: ['@observablehq/plot'] },
  server: { host: 'localhost' },
  preview: { host: 'localhost' },
});
