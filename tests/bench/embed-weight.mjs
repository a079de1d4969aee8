/**
 * Embed weight: what a reader downloads, and how long they wait, before an embedded view draws its figure
 * (issue 27, point 4: the measurement only).
 *
 * Every embed view (embed.html?view=<id>&encoding=<family>) and the playground (index.html, its default family) is
 * opened from the built dist/ in headless Chromium with a cold cache (a fresh profile for each page, the project's
 * launchBrowser), served by the project's serveStatic from a sub-path. serveStatic sends files as they are (no
 * Content-Encoding), so the gzip size of each response is measured here: zlib.gzipSync at level 9 on the bytes of
 * every response body (Playwright's context 'requestfinished' events, which include the engine worker's own fetches,
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
 * Alone: node tests/bench/embed-weight.mjs [--phone] [--json] (POSENC_DIST: another build's folder; EMBED_VIEWS=heatmap,decay: some
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
 * Lighthouse's mobile network profile ("Slow 4G", as its simulated throttling and DevTools' presets define it): 150 ms
 * round trip, 1.6 Mbit/s down, 750 kbit/s up; given to Chromium by the DevTools protocol's
 * Network.emulateNetworkConditions (its latency is added to each request's round trip, its throughputs cap each
 * direction; it applies to the page's dedicated workers too).
 */
export const PHONE_NETWORK = { latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 };

/** A phone's viewport (CSS px) for the phone-network pages. */
const PHONE_VIEWPORT = { width: 390, height: 844 };

/**
 * Each response's request level: 1 for the page's HTML, and 1 + its parent's for the rest. The parent is the file
 * Chromium names as its initiator (the document or style sheet that holds it, the script that asked for it) when
 * that is one of the page's responses; otherwise (a module's static import, which Chromium attributes to
 * "about:client"; a worker's script, which it names "other") the document, script or style sheet whose response
 * ended last before this request started: the one whose arrival let it be asked; for a request of the engine's worker
 * (which the page's DevTools session does not see), the worker's script or the worker's own request that ended last. Levels are the round trips in series: a file at level 4 could not be asked before three others
 * had arrived one after the other.
 */
function requestLevels(responses, initiators) {
  const byUrl = new Map(responses.map((r) => [r.url, r]));
  const canAsk = (r) => /\.(html|m?js|css)$/.test(new URL(r.url).pathname);
  const explicit = (r) => {
    const i = initiators.get(r.url);
    if (!i || (i.type !== 'parser' && i.type !== 'script')) return null;
    let url = i.url;
    for (let stack = i.stack; !url && stack; stack = stack.parent) url = stack.callFrames?.[0]?.url;
    const parent = url && byUrl.get(url);
    return parent && parent !== r && parent.endTime <= r.startTime + 1 ? parent : null;
  };
  for (const r of [...responses].sort((a, b) => a.startTime - b.startTime)) {
    let parent = explicit(r);
    if (!parent) {
      // A request the page's session did not see is the worker's: its parent is the worker's script or its own earlier file.
      const ofWorker = !initiators.has(r.url);
      for (const q of responses) {
        if (q === r || q.level === undefined || !canAsk(q) || q.endTime > r.startTime || (parent && q.endTime <= parent.endTime)) continue;
        if (!ofWorker || !initiators.has(q.url) || /worker/.test(q.file)) parent = q;
      }
    }
    r.level = parent ? parent.level + 1 : 1;
  }
}

/**
 * Opens `file + query` of the served dist/ in a fresh browser and measures it.
 * @param {{url: string}} site  serveStatic's
 * @param {string} file
 * @param {string} query
 * @param {{network?: object, viewport?: {width: number, height: number}}} [o]  network: Network.emulateNetworkConditions'
 *   latency (ms) and throughputs (bytes/s), PHONE_NETWORK; absent, the local server at full speed
 * @returns {Promise<{firstFigureMs, beforeBytes, settledBytes, rawBeforeBytes, levelsBefore, top: [string, number][], responses, problems}>}
 */
async function measureOne(site, file, query, { network = null, viewport = undefined } = {}) {
  const browser = await launchBrowser(viewport ? { viewport } : {});
  try {
    const page = await browser.newPage();
    await page.addInitScript(watchFirstFigure);
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    if (network) await cdp.send('Network.emulateNetworkConditions', { offline: false, ...network });
    const initiators = new Map();  // url -> the DevTools protocol's initiator of its first request
    cdp.on('Network.requestWillBeSent', (e) => { if (!initiators.has(e.request.url)) initiators.set(e.request.url, e.initiator); });
    const pending = [];                           // response bodies on their way
    const responses = [];
    let inFlight = 0;
    let lastActivity = Date.now();
    const context = browser.context;
    context.on('request', (request) => { if (!request.url().startsWith('data:')) { inFlight++; lastActivity = Date.now(); } });
    const done = (request) => { if (!request.url().startsWith('data:')) { inFlight--; lastActivity = Date.now(); } };
    context.on('requestfailed', done);
    // A response is read once its request finished (its timing then has responseEnd).
    context.on('requestfinished', (request) => {
      done(request);
      const url = request.url();
      if (url.startsWith('data:')) return;
      const timing = request.timing();
      const entry = { url, file: decodeURIComponent(new URL(url).pathname.replace(SUB_PATH, '')), startTime: timing.startTime,
        endTime: timing.startTime + Math.max(timing.responseEnd, 0) };
      pending.push(request.response().then((response) => response.body()).then((body) => {
        responses.push({ ...entry, rawBytes: body.length, gzipBytes: gzip(body) });
      }, (error) => {
        responses.push({ ...entry, rawBytes: 0, gzipBytes: 0, error: String(error.message).split('\n')[0] });
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
    requestLevels(responses, initiators);
    const before = responses.filter((r) => r.beforeFirstFigure);
    const sum = (list, key) => list.reduce((s, r) => s + r[key], 0);
    const top = [...before].sort((a, b) => b.gzipBytes - a.gzipBytes).slice(0, TOP).map((r) => [r.file, r.gzipBytes]);
    return {
      firstFigureMs, beforeBytes: sum(before, 'gzipBytes'), settledBytes: sum(responses, 'gzipBytes'),
      rawBeforeBytes: sum(before, 'rawBytes'), requestsBefore: before.length, requests: responses.length,
      levelsBefore: Math.max(0, ...before.map((r) => r.level)),
      settledWithinTimeout: Date.now() - settleStart < SETTLE_TIMEOUT_MS, top,
      responses: responses.map(({ url: _, startTime, endTime, ...r }) => ({ ...r, startMs: Math.round(startTime - timeOrigin), endMs: Math.round(endTime - timeOrigin) })),
      problems,
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

/** The phone-network aims: every embed view and the tour's first stop; 1.5 s for the heatmap and line-chart views. */
export const PHONE_AIMS = { firstFigureMs: 2000, plotFirstFigureMs: 1500 };

/** The families' own views (web/src/views/<type>-<name>.js, not in views/index.js's shared list), each with its family. */
function ownViews() {
  const dir = path.join(root, 'web/src/views');
  const index = fs.readFileSync(path.join(dir, 'index.js'), 'utf8');
  return fs.readdirSync(dir).filter((f) => f.endsWith('.js') && f !== 'index.js' && !index.includes(`'./${f}'`))
    .map((f) => ({ view: f.slice(0, -3), encoding: f.split('-')[0], figure: 'its own' }));
}

/** The labs whose views' first figure is a training run or a pasted model's config: not in the phone table. */
const TRAINING_LABS = ['experiment', 'language_model', 'model_profile'];

/**
 * Every other view a family or compare mode shows (not EMBED_VIEWS', not a family's own, not a training lab's), each
 * with the first family that shows it: the cross-family ones (the decay comparison, compare mode) among them.
 */
async function otherViews(listed) {
  const { FAMILIES } = await import('../../web/src/families/index.js');
  const seen = new Set(listed);
  const out = [];
  for (const [type, family] of Object.entries(FAMILIES)) {
    if (TRAINING_LABS.includes(type)) continue;
    for (const view of family.views) {
      if (seen.has(view)) continue;
      seen.add(view);
      out.push({ view, encoding: type, figure: 'other' });
    }
  }
  return out;
}

/**
 * The phone-network table (issue 40): every embed view of EMBED_VIEWS, every family's own view and every other view
 * of a family or of compare mode (not the training labs'), the tour's first stop and the playground, from dist/ served gzip-compressed (serveStatic's gzip: level 9, as a static host), in a
 * fresh 390 x 844 browser each, through PHONE_NETWORK: the time to the first figure, the bytes (gzip) and the
 * request levels before it (requestLevels), met or not against PHONE_AIMS. Reported, never asserted.
 * @param {{log?: (...a) => void, only?: string[]}} [o]  only: view ids, 'tour', 'playground'
 * @returns {Promise<{network, aims, viewport, pages: {name, view, figure, aimMs, ...measureOne}[]}>}
 */
export async function measurePhone({ log = () => {}, only = null } = {}) {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    execFileSync(path.join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  }
  const wanted = (name) => !only || only.includes(name);
  const plot = (figure) => figure === 'heatmap' || figure === 'line chart';
  const listed = [...EMBED_VIEWS, ...ownViews()];
  const targets = [
    ...[...listed, ...await otherViews(listed.map((v) => v.view))].filter((v) => wanted(v.view)).map((v) => ({ name: `embed ${v.view} (${v.encoding})`, view: v.view,
      file: 'embed.html', query: `?view=${v.view}&encoding=${v.encoding}`, figure: v.figure,
      aimMs: plot(v.figure) ? PHONE_AIMS.plotFirstFigureMs : PHONE_AIMS.firstFigureMs })),
    ...(wanted('tour') ? [{ name: "tour's first stop (tour.html)", view: 'tour', file: 'tour.html', query: '', figure: 'its stop',
      aimMs: PHONE_AIMS.firstFigureMs }] : []),
    ...(wanted('playground') ? [{ name: 'playground (index.html)', view: null, file: 'index.html', query: '', figure: 'first of its views',
      aimMs: null }] : []),
  ];
  const site = await serveStatic(DIST, { prefix: SUB_PATH, cors: true, gzip: true });
  const pages = [];
  try {
    await (await launchBrowser()).close();
    for (const t of targets) {
      log(`  ${t.name} (phone network) ...`);
      try {
        pages.push({ ...t, ...(await measureOne(site, t.file, t.query, { network: PHONE_NETWORK, viewport: PHONE_VIEWPORT })) });
      } catch (e) {
        pages.push({ ...t, error: String(e.message).split('\n')[0] });
      }
    }
  } finally {
    await site.close();
  }
  return { network: PHONE_NETWORK, aims: PHONE_AIMS, viewport: PHONE_VIEWPORT, dist: path.relative(root, DIST) || DIST, pages };
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

/** The phone-network table, as run.mjs prints it. */
export function formatPhone(r) {
  const lines = [];
  const n = r.network;
  lines.push(`phone network: dist/ served gzip -9, Chromium's Network.emulateNetworkConditions at ${n.latency} ms round trip, `
    + `${(n.downloadThroughput * 8 / 1e6).toFixed(1)} Mbit/s down, ${(n.uploadThroughput * 8 / 1e3).toFixed(0)} kbit/s up, `
    + `${r.viewport.width} x ${r.viewport.height}, cold cache (a fresh profile each);`);
  lines.push(`  aims: first figure <= ${r.aims.firstFigureMs / 1000} s for every embed view and the tour's first stop, `
    + `<= ${r.aims.plotFirstFigureMs / 1000} s for the heatmap and line-chart embeds (the playground: reported)`);
  lines.push(`  ${pad('page', 36)} ${pad('1st figure', 11)} ${pad('aim', 13)} ${pad('KB before', 10)} ${pad('levels', 7)} requests before / all`);
  for (const p of r.pages) {
    if (p.error) { lines.push(`  ${pad(p.name, 36)} failed: ${p.error}`); continue; }
    const aim = p.aimMs === null ? '-' : `${p.aimMs / 1000} s ${p.firstFigureMs <= p.aimMs ? 'met' : 'NOT MET'}`;
    lines.push(`  ${pad(p.name, 36)} ${pad(`${(p.firstFigureMs / 1000).toFixed(2)} s`, 11)} ${pad(aim, 13)} ${pad(kb(p.beforeBytes), 10)}`
      + ` ${pad(String(p.levelsBefore), 7)} ${p.requestsBefore} / ${p.requests}`);
  }
  return lines.join('\n');
}

// Alone: node tests/bench/embed-weight.mjs
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const only = process.env.EMBED_VIEWS ? process.env.EMBED_VIEWS.split(',') : null;
  const phone = process.argv.includes('--phone');
  const r = phone ? await measurePhone({ log: console.error, only }) : await measureEmbedWeight({ log: console.error, only });
  console.log(phone ? formatPhone(r) : formatEmbedWeight(r));
  if (process.argv.includes('--json')) console.log(JSON.stringify(r, null, 1));
}
