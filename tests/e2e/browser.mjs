// Starts the playground's Vite dev server (what `npm start` serves) on a free
// loopback port and Debian's Chromium through playwright-core, for the browser
// tests and for screenshots.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** @returns {Promise<{url: string, newPage(): Promise<import('playwright-core').Page>, close(): Promise<void>}>} */
export async function startPlayground() {
  const server = await createServer({
    configFile: path.join(root, 'vite.config.js'),
    root: path.join(root, 'web'),
    server: { port: 0, strictPort: false, host: '127.0.0.1' },
    logLevel: 'error',
    clearScreen: false,
  });
  await server.listen();
  const url = server.resolvedUrls.local[0];
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 1000 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    url,
    /** A page that records console errors and page errors in page.problems. */
    async newPage() {
      const page = await context.newPage();
      page.problems = [];
      page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') page.problems.push(`console.${m.type()}: ${m.text()}`); });
      page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
      return page;
    },
    async close() {
      await context.close();
      await server.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens `query` on the playground and waits until the page has drawn its first view. */
export async function openPlayground(playground, page, query = '') {
  await page.goto(`${playground.url}${query}`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 30000 });
  await page.waitForSelector('#views section:first-child .figure > *');
}
