// The browser tests' setting: the built dist/ (npm run build) served from a
// sub-path of one origin, as a static host would serve it (with CORS, as
// GitHub Pages does), a second origin for a blog post that embeds it, and
// Debian's Chromium through playwright-core.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { PAGE_POLICY } from '../../scripts/csp.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST = process.env.POSENC_DIST ?? path.join(root, 'dist');  // another build's folder, for parallel runs
export const SUB_PATH = '/blog/2026/posenc/';
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8' };
/** What serveStatic({gzip: true}) compresses (woff2 is compressed already). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.txt', '.json', '.svg']);

/**
 * A static file server for `dir` under `prefix`, on a free loopback port. Like a static host, it sends each file's ETag
 * (here with Cache-Control: no-cache): a page loaded again revalidates its files (304), and Chromium reuses its
 * compiled scripts and WebAssembly; every request still reaches the server (and `requests`).
 * @param {object} o
 * @param {boolean} [o.cors]  send Access-Control-Allow-Origin: *
 * @param {(file: string, text: string) => string} [o.rewriteHtml]  changes an HTML file on its way out
 * @param {Record<string, string>} [o.htmlHeaders]  more headers for HTML files (a Content-Security-Policy)
 * @param {Record<string, string>} [o.headers]  more headers for every file (a policy that governs the workers too: a
 *   worker's policy is its script's response's)
 * @param {boolean} [o.gzip]  send text, JavaScript and .wasm gzip-compressed (level 9, Content-Encoding: gzip) to a
 *   client that accepts it, as static hosts do (GitHub Pages, Netlify); fonts and images as they are
 * @returns {Promise<{origin: string, url: string, requests: {path: string, origin: string|undefined}[], close(): Promise<void>}>}
 *   requests: every request received, with its Origin header (sent by cross-origin fetches)
 */
export async function serveStatic(dir, { prefix = '/', cors = false, host = '127.0.0.1', rewriteHtml = null, htmlHeaders = {}, headers: everyFile = {}, gzip = false } = {}) {
  const requests = [];
  const compressed = new Map();  // file -> {etag, body}: each file gzipped once
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://localhost');
    requests.push({ path: url.pathname, origin: request.headers.origin });
    let relative = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : null;
    if (relative === '' || relative?.endsWith('/')) relative += 'index.html';
    const file = relative !== null && path.join(dir, decodeURIComponent(relative));
    if (!file || !file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      response.writeHead(404).end();
      return;
    }
    const stat = fs.statSync(file);
    const etag = `"${stat.size.toString(16)}-${stat.mtimeMs.toString(16)}"`;
    const headers = { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache', etag, ...everyFile };
    if (cors) headers['access-control-allow-origin'] = '*';
    if (file.endsWith('.html')) Object.assign(headers, htmlHeaders);
    if (request.headers['if-none-match'] === etag && !(rewriteHtml && file.endsWith('.html'))) {
      response.writeHead(304, headers).end();
      return;
    }
    if (gzip && COMPRESSIBLE.has(path.extname(file)) && /\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
      let body = rewriteHtml && file.endsWith('.html') ? zlib.gzipSync(rewriteHtml(file, fs.readFileSync(file, 'utf8')), { level: 9 }) : null;
      if (!body) {
        if (compressed.get(file)?.etag !== etag) compressed.set(file, { etag, body: zlib.gzipSync(fs.readFileSync(file), { level: 9 }) });
        body = compressed.get(file).body;
      }
      response.writeHead(200, { ...headers, 'content-encoding': 'gzip', 'content-length': body.length, vary: 'accept-encoding' });
      response.end(body);
      return;
    }
    response.writeHead(200, headers);
    if (rewriteHtml && file.endsWith('.html')) response.end(rewriteHtml(file, fs.readFileSync(file, 'utf8')));
    else fs.createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, host, resolve));
  const origin = `http://${host}:${server.address().port}`;
  return {
    origin,
    url: `${origin}${prefix}`,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }),
  };
}

/** Chromium's flags for every test browser: no sandbox (containers), no GPU, nothing fetched from elsewhere. */
export const BROWSER_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Headless Chromium with a fresh profile: a context of its own. Under `npm test` (scripts/with-browser.mjs sets
 * POSENC_BROWSER_WS) it is a new context of the one browser the whole run shares, which saves a browser start a file
 * (about 1.5 s); alone (`node --test tests/e2e/x.test.mjs`), or given its own Chromium flags (`args`), its own browser.
 * Every page it opens records, in page.problems, its console errors and warnings, its uncaught errors, and every
 * Content-Security-Policy violation of any of its frames (the built pages carry the strict policy with Trusted Types,
 * scripts/csp.mjs: a string that reached a script sink shows here).
 * @param {object} [options]  context options (viewport, colorScheme); args: Chromium's flags, or ownBrowser: true, for
 *   a browser of its own (one that reads this machine's files where a test gives it a path: setInputFiles of a file on
 *   disk would be copied whole to a connected browser)
 */
export async function launchBrowser({ ownBrowser = false, ...options } = {}) {
  const contextOptions = { viewport: { width: 1280, height: 1000 }, acceptDownloads: true, ...options };
  let context;
  let shared = null;
  let profile = null;
  if (process.env.POSENC_BROWSER_WS && !options.args && !ownBrowser) {
    shared = await chromium.connect(process.env.POSENC_BROWSER_WS);
    context = await shared.newContext(contextOptions);
  } else {
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: BROWSER_ARGS, ...contextOptions });
  }
  await context.exposeBinding('posencPolicyViolation', ({ page, frame }, text) => page?.problems?.push(`violation in ${frame.url()}: ${text}`));
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      window.posencPolicyViolation(`${e.effectiveDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber} ${e.sample}`);
    }, true);
  });
  return {
    context,
    /** A page that records console errors and warnings, page errors and policy violations in page.problems. */
    async newPage() {
      const page = await context.newPage();
      page.problems = [];
      page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') page.problems.push(`console.${m.type()}: ${m.text()}`); });
      page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
      return page;
    },
    async close() {
      await context.close();
      if (shared) await shared.close();  // disconnects; the run's browser stays for the next file
      else fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The strictest policy the page, embed.html and the component run under (web/README.md, "Under a strict
 * Content-Security-Policy"): nothing inline, nothing from elsewhere, 'wasm-unsafe-eval' to compile the engine's
 * WebAssembly, Trusted Types with the one policy 'posenc'. The built pages carry it as a <meta>; csp.test.mjs also sends
 * it as a header.
 */
export const STRICT_CSP = PAGE_POLICY;

/**
 * The built playground served from a sub-path, and a browser.
 * @param {object} [options]  launchBrowser's options, and htmlHeaders: more headers for every HTML page (serveStatic)
 */
export async function startPlayground({ htmlHeaders = {}, ...options } = {}) {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) throw new Error('dist/ is missing: run `npm run build` (npm run test:e2e does)');
  const server = await serveStatic(DIST, { prefix: SUB_PATH, cors: true, htmlHeaders });
  const browser = await launchBrowser(options);
  let shared = null;
  const playground = {
    url: server.url,
    server,
    context: browser.context,
    newPage: () => browser.newPage(),
    /**
     * The file's one page on the playground (index.html), showing `query` and drawn: for a test that only needs the
     * playground in a state. The first call loads it (openPlayground); later ones show their state in place, as Back
     * and Forward do (navigate: 0.5 s, where a new page's load takes 3 to 4 s here), after clearing what the last test
     * left that the state does not hold: its recorded problems, the focus and the scroll. A query the page shows
     * already, or a page a test took elsewhere (embed.html), is loaded again. A test that needs a fresh page (its own viewport,
     * colour scheme, bindings or listeners, the focus from the top, a reload) takes newPage; a test does not close
     * this one.
     * @param {string} [query]  the URL's search ("?encoding=rope"), without a #fragment
     */
    async open(query = '', timeout = 30000) {
      if (query.includes('#')) throw new Error(`open(${query}): a #fragment is not shown in place; use newPage`);
      if (!shared || shared.isClosed()) {
        shared = await browser.newPage();
        await openPlayground(playground, shared, query, '', timeout);
        return shared;
      }
      shared.problems.length = 0;
      const { index, same } = await shared.evaluate(({ q, home }) => {
        document.activeElement?.blur();
        window.scrollTo(0, 0);
        return { index: [home, `${home}index.html`].includes(location.pathname),
          same: new URLSearchParams(location.search).toString() === new URLSearchParams(q).toString() };
      }, { q: query, home: SUB_PATH });
      if (!index || same) await openPlayground(playground, shared, query, '', timeout);
      else await navigate(shared, query, timeout);
      return shared;
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
  return playground;
}

/**
 * The settings that make a lab's training short, for the tests that open every family (`?encoding=name&` + this):
 * the experiment and the language-model lab train for minutes at their defaults.
 */
export const LIGHT_QUERY = {
  experiment: 'sequences=40&batch_size=1',
  language_model: 'steps=4&train_length=16&encodings=rope',
};

/**
 * Waits until the page has drawn its state: body[data-ready=true] and a view's figure. Through locators: waitForSelector
 * returns an element handle, which keeps its element, and the figure's detached canvases after it, alive in the page
 * until disposed (a soak of 100 states in place grew the renderer from 471 to 3,781 MiB that way).
 */
async function drawnIn(page, timeout) {
  await page.locator('body[data-ready=true]').waitFor({ timeout });
  await page.locator('section.view .figure > *').first().waitFor();
}

/**
 * Opens `query` on the playground and waits until the page has drawn every view (within `timeout` ms: 30 s, more for a
 * link that trains the language-model lab's 8 default arms and tests each over the whole held-out text).
 */
export async function openPlayground(playground, page, query = '', file = '', timeout = 30000) {
  await page.goto(`${playground.url}${file}${query}`);
  await drawnIn(page, timeout);
}

/**
 * The bytes of a playwright Download: read through its stream, which works both in a browser of the test's own and in
 * the run's shared one (a connected browser's download has no local path).
 * @param {import('playwright-core').Download} download
 * @returns {Promise<Buffer>}
 */
export async function downloaded(download) {
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * Shows `query` (a URL's search and #fragment) in a page already open on the playground, as Back and Forward do:
 * main.js's popstate handler loads the state in place (the same loadLocation a first load runs), without loading the
 * page, its modules and its engine again. Waits until it has drawn every view (body[data-ready] goes "false" at
 * once, "true" when the state is drawn or refused), like openPlayground. A query the page shows already loads nothing.
 */
export async function navigate(page, query, timeout = 30000) {
  await page.evaluate((q) => {
    history.pushState(null, '', q || location.pathname);
    dispatchEvent(new PopStateEvent('popstate'));
  }, query);
  await drawnIn(page, timeout);
}

/**
 * Whether a view's figure has marks: a canvas with painted pixels, or an SVG with paths or shapes. It runs in the
 * page: pass `drawn.toString()` into page.evaluate (or `(${drawn})(root)`).
 */
export function drawn(root) {
  const canvas = root.querySelector('.figure canvas');
  if (canvas && canvas.width > 0) {
    const copy = document.createElement('canvas');
    copy.width = canvas.width;
    copy.height = canvas.height;
    const context = copy.getContext('2d');
    context.drawImage(canvas, 0, 0);
    const pixels = context.getImageData(0, 0, copy.width, copy.height).data;
    for (let k = 3; k < pixels.length; k += 4) if (pixels[k] > 0) return true;
    return false;
  }
  return root.querySelectorAll('.figure svg path, .figure svg rect, .figure svg circle').length > 4;
}

/**
 * Drags the slider of control `name` from the middle of its track to 90% in 20 steps 50 ms apart, as a reader
 * does, then waits until the link holds the value and no view is busy.
 */
export async function dragSlider(page, name) {
  const slider = await page.locator(`input[name="${name}-slider"]:visible`).first().boundingBox();  // the sidebar's, or a view's shown one
  const y = slider.y + slider.height / 2;
  await page.mouse.move(slider.x + slider.width * 0.5, y);
  await page.mouse.down();
  for (let k = 1; k <= 20; k++) {
    await page.mouse.move(slider.x + slider.width * (0.5 + k * 0.02), y);
    await page.waitForTimeout(50);
  }
  await page.mouse.up();
  await page.waitForFunction((key) => new URLSearchParams(location.search).has(key), name, { timeout: 60000 });
  await page.waitForFunction(() => !document.querySelector('section.busy-view'), null, { timeout: 60000 });
}

/**
 * Fills the attention lab's sentence with 499 words and types " end" a key every 40 ms (500 tokens), then waits
 * for the 500-token attention map and until no view is busy.
 */
export async function typeLongSentence(page) {
  const words = Array.from({ length: 499 }, (_, k) => ['the', 'cat', 'sat', 'on', 'a', 'mat', 'and', 'dog'][k % 8]).join(' ');
  await page.fill('#control-text', words);
  await page.type('#control-text', ' end', { delay: 40 });
  await page.waitForFunction(() => document.querySelector('#attention .figure [aria-label^="weight of every query and key of a 500-token"]'),
    null, { timeout: 60000 });
  await page.waitForFunction(() => !document.querySelector('section.busy-view'), null, { timeout: 60000 });
}

/**
 * What the policy would break, read in the page for a root (document or shadow root): <style> elements, Plot charts
 * without the rules of views.css or wider than their figure (clipped), KaTeX boxes without their sizes, MathML-only
 * formulas, and KaTeX's fonts loaded in the document. Runs in the page: page.evaluate(`(${styling})(document)`).
 */
export async function styling(r) {
  await document.fonts.ready;
  const charts = [...r.querySelectorAll('svg.posenc-plot')];
  return {
    styleElements: r.querySelectorAll('style').length,
    charts: charts.length,
    unstyled: charts.filter((svg) => getComputedStyle(svg).maxWidth !== '100%' || getComputedStyle(svg).display !== 'block').length,
    clipped: charts.filter((svg) => svg.getBoundingClientRect().right > svg.closest('.figure').getBoundingClientRect().right + 0.5).length,
    struts: [...r.querySelectorAll('.katex [class*=strut]')].filter((s) => s.style.height).length,
    mathmlOnly: r.querySelectorAll('.formula .katex > math').length,  // a component's formulas (lib/katex.js)
    katexFonts: [...document.fonts].filter((f) => f.family.startsWith('KaTeX') && f.status === 'loaded').length,
  };
}
