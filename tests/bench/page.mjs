// The page in headless Chromium: how long the main thread is held while a heavy
// change is worked (the engine runs in a Web Worker, so the page should stay
// free). The longest main-thread task (PerformanceObserver 'longtask': tasks
// over 50 ms) while dragging the base slider of a [4096, 1024] sinusoidal table,
// and while typing into a 500-token sentence on the RoPE page. Printed by run.mjs
// (section `page`), never asserted: tests/e2e/layout.test.mjs checks what the
// page does in the same two cases, not how fast.
// Needs the built dist/ (run.mjs builds it with `vite build` when it is missing).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { DIST, SUB_PATH, dragSlider, launchBrowser, openPlayground, serveStatic, root, typeLongSentence } from '../e2e/browser.mjs';

/** Starts recording the page's long tasks in window.longTasks (their durations, ms). */
function recordLongTasks(page) {
  return page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.longTasks.push(e.duration); }).observe({ type: 'longtask' });
  });
}

/** {longestMs, longTasks}: the longest task recorded (0 when none was over 50 ms) and how many there were. */
async function longTasksOf(page) {
  const tasks = await page.evaluate(() => window.longTasks);
  return { longestMs: Math.max(0, ...tasks), longTasks: tasks.length };
}

/** Drags base from the middle of its slider to 90% of it in 20 steps (dragSlider), at n = 4096, d_model = 1024. */
async function dragBase(site, browser) {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await openPlayground(site, page, '?n=4096&d_model=1024');
  await recordLongTasks(page);
  await page.evaluate(() => {
    window.heatmapDraws = 0;
    new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.name === 'posenc: draw heatmap') window.heatmapDraws++; })
      .observe({ type: 'measure' });
  });
  await dragSlider(page, 'base');
  const result = { ...(await longTasksOf(page)), heatmapDraws: await page.evaluate(() => window.heatmapDraws) };
  await page.close();
  return result;
}

/** Fills a 499-word sentence on the RoPE page, then types " end" a key every 40 ms (500 tokens). */
async function typeSentence(site, browser) {
  const page = await browser.newPage();
  await openPlayground(site, page, '?encoding=rope');
  await recordLongTasks(page);
  await typeLongSentence(page);
  const result = await longTasksOf(page);
  await page.close();
  return result;
}

/**
 * The page's main-thread figures: {dragBase: {longestMs, longTasks, heatmapDraws}, typing: {longestMs, longTasks}},
 * or {error} when Chromium or the build is not there.
 */
export async function measurePage() {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    execFileSync(path.join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  }
  const site = await serveStatic(DIST, { prefix: SUB_PATH, cors: true });
  let browser;
  try {
    browser = await launchBrowser();
    return { dragBase: await dragBase(site, browser), typing: await typeSentence(site, browser) };
  } finally {
    await browser?.close();
    await site.close();
  }
}

// Alone: node tests/bench/page.mjs
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  console.log(JSON.stringify(await measurePage(), null, 2));
}
