/**
 * Embed weight: what a reader downloads, and how long they wait, before an embedded view draws its figure
 * (issue 27, point 4: the measurement only).
 *
 * Every embed view (embed.html?view=<id>&encoding=<family>) and the playground (index.html, its default family) is
 * opened from the built dist/ in headless Chromium with a cold cache (a fresh profile for each page, the project's
 * launchBrowser), served by the project's serveStatic from a sub-path. serveStatic sends files as they are (no
 * Content-Encoding), so the gzip size of each response is measured here: zlib.gzipSync at level 9 on the bytes of
 * every response body (Playwright's context 'response' events, which include the engine worker's own fetches,
 * e.g. the .wasm). scripts/sizes.mjs, by contrast, adds up what Vite's manifest says a view imports, at gzip level 6;
 * this counts what the browser really fetched.
 *
 * The first figure: the moment some `section.view` has an element inside its `.figure` and is not `.busy-view`
 * (no busy overlay), seen by a MutationObserver installed before the page's scripts run (addInitScript), which
 * records performance.now() then: ms since navigation start (the DOM's time; the paint follows at the next frame). A
 * response counts as "before the first figure" when its request started (request.timing().startTime, wall-clock ms)
 * before performance.timeOrigin + that time, so a file requested close to the figure (a KaTeX font) may fall on either
 * side from one run to the next.
 * "Settled": no request in flight and none started for 2 s (at most 60 s after the figure).
 *
 * Per page: {bytes before the first figure (gzip), bytes after settling (gzip), ms to the first figure, the
 * largest files before the first figure (name -> gzip bytes), every response}. Printed by run.mjs (section
 * `embed`, BENCH_ONLY=embed), with the aims (150 KB gzip before the first figure for each heatmap and line-chart
 * embed, 250 KB for the playground, first figure within 400 ms); reported, never asserted: no test asserts a
 * duration (a loaded machine would make any threshold flaky).
 *
 * Alone: node tests/bench/embed-weight.mjs  (POSENC_DIST: another build's folder; EMBED_VIEWS=heatmap,decay: some
 * views only). Needs the built dist/ (run.mjs builds it with `vite build` when it is missing).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { DIST, SUB_PATH, launchBrowser, serveStatic, root } from '../e2e/browser.mjs';

/** The views issue 27 names, each with the family that shows it, and what kind of figure it draws. */
export const EMBED_VIEWS = [
  { view: 'heatmap', encoding: 'sinusoidal', figure: 'heatmap' },
  { view: 'waves', encoding: 'sinusoidal', figure: 'line chart' },
  { view: 'decay', encoding: 'rope', figure: 'line chart' },
  { view: 'spectrum', encoding: 'rope', figure: 'line chart' },
  { view: 'bias', encoding: 'alibi', figure: 'heatmap' },
  { view: 'buckets', encoding: 't5', figure: 'line chart' },
  { view: 'attention', encoding: 'sinusoidal', figure: 'heatmap' },
  { view: 'ablation', encoding: 'sinusoidal', figure: 'heatmap' },
];

/** The aims (reported, not enforced). */
export const AIMS = { embedBytes: 150 * 1024, playgroundBytes: 250 * 1024, firstFigureMs: 400 };

const QUIET_MS = 2000;            // network idle that counts as settled
const FIGURE_TIMEOUT_MS = 60000;  // a page that draws nothing by then is reported as failed
const SETTLE_TIMEOUT_MS = 60000;
const TOP = 6;                    // contributors listed per page

/** Runs in the page before its scripts: window.__posencFirstFigure = performance.now() when a figure first shows. */
function watchFirstFigure() {
  const drawnNow = () => [...document.querySelectorAll('section.view')]
    .some((section) => !section.classList.contains('busy-view') && section.querySelector('.figure > *'));
  const observer = new MutationObserver(() => {
    if (window.__posencFirstFigure === undefined && drawnNow()) {
      window.__posencFirstFigure = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
}

const gzip = (bytes) => zlib.gzipSync(bytes, { level: 9 }).length;

/**
 * Opens `file + query` of the served dist/ in a fresh browser and measures it.
 * @returns {Promise<{firstFigureMs, beforeBytes, settledBytes, rawBeforeBytes, top: [string, number][], responses, problems}>}
 */
async function measureOne(site, file, query) {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.addInitScript(watchFirstFigure);
    const pending = [];                           // response bodies on their way
    const responses = [];
    let inFlight = 0;
    let lastActivity = Date.now();
    const context = browser.context;
    context.on('request', (request) => { if (!request.url().startsWith('data:')) { inFlight++; lastActivity = Date.now(); } });
    const done = (request) => { if (!request.url().startsWith('data:')) { inFlight--; lastActivity = Date.now(); } };
    context.on('requestfailed', done);
    context.on('requestfinished', done);
    context.on('response', (response) => {
      const url = response.url();
      if (url.startsWith('data:')) return;
      pending.push(response.body().then((body) => {
        responses.push({ url, file: decodeURIComponent(new URL(url).pathname.replace(SUB_PATH, '')), status: response.status(),
          startTime: response.request().timing().startTime, rawBytes: body.length, gzipBytes: gzip(body) });
      }, (error) => {
        responses.push({ url, file: new URL(url).pathname, status: response.status(), startTime: response.request().timing().startTime,
          rawBytes: 0, gzipBytes: 0, error: String(error.message).split('\n')[0] });
      }));
    });

    await page.goto(`${site.url}${file}${query}`);
    await page.waitForFunction(() => window.__posencFirstFigure !== undefined, null, { timeout: FIGURE_TIMEOUT_MS, polling: 50 });
    const { firstFigureMs, timeOrigin } = await page.evaluate(() => ({ firstFigureMs: window.__posencFirstFigure, timeOrigin: performance.timeOrigin }));
    const settleStart = Date.now();
    while ((inFlight > 0 || Date.now() - lastActivity < QUIET_MS) && Date.now() - settleStart < SETTLE_TIMEOUT_MS) await page.waitForTimeout(100);
    await Promise.all(pending);
    const problems = page.problems.slice();
    await page.close();

    const figureAt = timeOrigin + firstFigureMs;  // wall-clock ms, as request.timing().startTime
    for (const r of responses) r.beforeFirstFigure = r.startTime <= figureAt;
    responses.sort((a, b) => a.startTime - b.startTime);
    const before = responses.filter((r) => r.beforeFirstFigure);
    const sum = (list, key) => list.reduce((s, r) => s + r[key], 0);
    const top = [...before].sort((a, b) => b.gzipBytes - a.gzipBytes).slice(0, TOP).map((r) => [r.file, r.gzipBytes]);
    return {
      firstFigureMs, beforeBytes: sum(before, 'gzipBytes'), settledBytes: sum(responses, 'gzipBytes'),
      rawBeforeBytes: sum(before, 'rawBytes'), requestsBefore: before.length, requests: responses.length,
      settledWithinTimeout: Date.now() - settleStart < SETTLE_TIMEOUT_MS, top,
      responses: responses.map(({ url: _, startTime, ...r }) => ({ ...r, startMs: Math.round(startTime - timeOrigin) })), problems,
    };
  } finally {
    await browser.close();
  }
}

/**
 * Every embed view of EMBED_VIEWS and the playground, measured one after the other (a fresh browser each).
 * @param {object} [o]
 * @param {(...a) => void} [o.log]
 * @param {string[]} [o.only]  view ids (default: all, and the playground; 'playground' names it)
 * @returns {Promise<{aims, gzipLevel: 9, quietMs, pages: {name, file, query, figure, aimBytes, ...measureOne}[]}>}
 */
export async function measureEmbedWeight({ log = () => {}, only = null } = {}) {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    execFileSync(path.join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  }
  const wanted = (name) => !only || only.includes(name);
  const targets = [
    ...EMBED_VIEWS.filter((v) => wanted(v.view)).map((v) => ({ name: `embed ${v.view} (${v.encoding})`, view: v.view, file: 'embed.html',
      query: `?view=${v.view}&encoding=${v.encoding}`, figure: v.figure, aimBytes: AIMS.embedBytes })),
    ...(wanted('playground') ? [{ name: 'playground (index.html)', view: null, file: 'index.html', query: '', figure: 'first of its views',
      aimBytes: AIMS.playgroundBytes }] : []),
  ];
  const site = await serveStatic(DIST, { prefix: SUB_PATH, cors: true });
  const pages = [];
  try {
    // A throwaway launch first: the first Chromium start after a while reads its files from disk, which is not the page's cost.
    await (await launchBrowser()).close();
    for (const t of targets) {
      log(`  ${t.name} ...`);
      try {
        pages.push({ ...t, ...(await measureOne(site, t.file, t.query)) });
      } catch (e) {
        pages.push({ ...t, error: String(e.message).split('\n')[0] });
      }
    }
  } finally {
    await site.close();
  }
  return { aims: AIMS, gzipLevel: 9, quietMs: QUIET_MS, dist: path.relative(root, DIST) || DIST, pages };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const pad = (s, w) => (s.length >= w ? s : s + ' '.repeat(w - s.length));
const short = (file) => file.replace(/^assets\//, '').replace(/-[\w-]{8}(\.\w+)$/, '$1');  // heatmap-ChSiDP7z.js -> heatmap.js

/** The section's table, as run.mjs prints it: one line per page and its largest files before the first figure. */
export function formatEmbedWeight(r) {
  const lines = [];
  lines.push(`embed weight: each embed view and the playground from dist/ in headless Chromium, cold cache, local server; gzip -9 of every response body;`);
  lines.push(`  aims: <= ${kb(r.aims.embedBytes)} before the first figure for each heatmap and line-chart embed, <= ${kb(r.aims.playgroundBytes)} for the playground,`
    + ` first figure <= ${r.aims.firstFigureMs} ms after navigation start (reported, not enforced)`);
  lines.push(`  ${pad('page', 34)} ${pad('before figure', 14)} ${pad('aim', 8)} ${pad('settled', 10)} ${pad('1st figure', 11)} ${pad('aim', 8)} requests`);
  for (const p of r.pages) {
    if (p.error) { lines.push(`  ${pad(p.name, 34)} failed: ${p.error}`); continue; }
    const bytesMet = p.beforeBytes <= p.aimBytes;
    const msMet = p.firstFigureMs <= r.aims.firstFigureMs;
    lines.push(`  ${pad(p.name, 34)} ${pad(kb(p.beforeBytes), 14)} ${pad(bytesMet ? 'met' : 'NOT MET', 8)} ${pad(kb(p.settledBytes), 10)}`
      + ` ${pad(`${Math.round(p.firstFigureMs)} ms`, 11)} ${pad(msMet ? 'met' : 'NOT MET', 8)} ${p.requestsBefore} / ${p.requests}`
      + `${p.settledWithinTimeout ? '' : ' (not settled)'}`);
    lines.push(`  ${pad('', 34)} largest before the figure: ${p.top.map(([f, b]) => `${short(f)} ${kb(b)}`).join(', ')}`);
  }
  return lines.join('\n');
}

// Alone: node tests/bench/embed-weight.mjs
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const only = process.env.EMBED_VIEWS ? process.env.EMBED_VIEWS.split(',') : null;
  const r = await measureEmbedWeight({ log: console.error, only });
  console.log(formatEmbedWeight(r));
  if (process.argv.includes('--json')) console.log(JSON.stringify(r, null, 1));
}
