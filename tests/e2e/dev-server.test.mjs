// What `npm start` serves: Vite's dev server over web/ (unbundled modules, the
// worker as a module). The playground, the embed page and the component draw.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createServer } from 'vite';
import { launchBrowser, root } from './browser.mjs';

let server;
let browser;
before(async () => {
  server = await createServer({
    configFile: path.join(root, 'vite.config.js'), root: path.join(root, 'web'),
    server: { port: 0, strictPort: false, host: '127.0.0.1' }, logLevel: 'error', clearScreen: false,
  });
  await server.listen();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('the dev server draws the playground, an embed and a component, computing in a worker', async () => {
  const url = server.resolvedUrls.local[0];
  const page = await browser.newPage();
  await page.goto(`${url}?n=8&d_model=16`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 60000 });
  assert.deepEqual(await page.$eval('#heatmap canvas.matrix', (c) => [c.width, c.height]), [16, 8]);
  assert.match(await page.textContent('footer'), /SIMD on\) · computed in a Web Worker/);
  await page.goto(`${url}embed.html?view=slopes&encoding=alibi&n_heads=6`);
  await page.waitForSelector('body[data-ready=true]');
  assert.equal(await page.locator('#slopes [aria-label="dot"] circle').count(), 6);
  await page.setContent(`<script type="module" src="${url}src/shells/posenc-view.js"></script>` +
    '<posenc-view id="v" view="bias" encoding="kerple" n="12"></posenc-view>');
  await page.waitForFunction(() => customElements.get('posenc-view'));
  await page.evaluate(() => document.getElementById('v').whenReady());
  assert.equal(await page.$eval('#v', (v) => v.shadowRoot.querySelector('canvas.matrix').width), 12);
  assert.match(await page.$eval('#v', (v) => v.shadowRoot.querySelector('.open-link').href), new RegExp(`^${url}index\\.html\\?encoding=kerple&n=12#bias$`));
  assert.deepEqual(page.problems, []);
  await page.close();
});
