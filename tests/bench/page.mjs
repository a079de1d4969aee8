// The page in headless Chromium: how long the main thread is held while a heavy
// change is worked (the engine runs in a Web Worker, so the page should stay
// free). The longest main-thread task (PerformanceObserver 'longtask': tasks
// over 50 ms) while dragging the base slider of a [4096, 1024] sinusoidal table,
// while typing into a 500-token sentence on the RoPE page, and while a 12 MB
// config.json pasted into the page is read (the engine's worker parses it). Printed by run.mjs
// (section `page`), never asserted: tests/e2e/layout.test.mjs checks what the
// page does in the same two cases, not how fast.
// Needs the built dist/ (run.mjs builds it with `vite build` when it is missing).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { DIST, SUB_PATH, dragSlider, launchBrowser, openPlayground, serveStatic, root, typeLongSentence } from '../e2e/browser.mjs';

/** Starts recording the page's long tasks afresh in window.longTasks (their durations, ms). */
function recordLongTasks(page) {
  return page.evaluate(() => {
    window.longTasks = [];
    window.longTaskObserver ??= new PerformanceObserver((list) => { for (const e of list.getEntries()) window.longTasks.push(e.duration); });
    window.longTaskObserver.observe({ type: 'longtask' });
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
 * Pastes a 12 MB config.json (Llama-3.1-8B's positional keys, and id2label and label2id of 280,000 labels, which posenc
 * ignores) on the RoPE page already
 * showing those keys' values (a small paste of the same keys first), so what is timed is reading the paste, not
 * drawing other values: from the click on "Show this config" until its note is shown.
 */
async function pasteConfig(site, browser) {
  const page = await browser.newPage();
  await openPlayground(site, page, '?encoding=rope');
  await page.click('#paste-config summary');
  const paste = async (padding) => {
    await page.evaluate((length) => {
      const config = { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_hidden_layers: 32, rope_theta: 500000,
        max_position_embeddings: 131072, rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4,
          original_max_position_embeddings: 8192 } };
      // A classifier's label maps (keys posenc ignores), as large as it takes.
      if (length) config.id2label = Object.fromEntries(Array.from({ length }, (_, k) => [k, `LABEL_${k}`]));
      if (length) config.label2id = Object.fromEntries(Array.from({ length }, (_, k) => [`LABEL_${k}`, k]));
      document.getElementById('config-text').value = JSON.stringify(config);
      document.getElementById('config-notes').textContent = '';
      // The text box lays out its 12 MB before the timing starts: a paste into it costs that on any page.
      return new Promise((resolve) => { requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 200))); });
    }, padding);
    await recordLongTasks(page);
    await page.click('#config-apply');
    await page.waitForFunction(() => document.getElementById('config-notes').textContent || document.getElementById('error-config').textContent,
      null, { timeout: 60000 });
    await page.waitForFunction(() => !document.querySelector('section.busy-view'), null, { timeout: 60000 });
  };
  await paste(0);
  await paste(280_000);  // 12 MB of JSON
  const result = { ...(await longTasksOf(page)), megabytes: await page.evaluate(() => document.getElementById('config-text').value.length / 1e6) };
  await page.close();
  return result;
}

/**
 * The page's main-thread figures: {dragBase: {longestMs, longTasks, heatmapDraws}, typing: {longestMs, longTasks},
 *   paste: {longestMs, longTasks, megabytes}},
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
    return { dragBase: await dragBase(site, browser), typing: await typeSentence(site, browser), paste: await pasteConfig(site, browser) };
  } finally {
    await browser?.close();
    await site.close();
  }
}

// Alone: node tests/bench/page.mjs
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  console.log(JSON.stringify(await measurePage(), null, 2));
}
