// The language-model lab's default run in headless Chromium (section `lm-page` of run.mjs, also selected by `train`):
// the built playground (dist/, served from a sub-path as the e2e tests serve it) opened at ?encoding=language_model
// with the lab's defaults, and the wall time from the navigation to the run's final state (finishedSignal below):
// every arm trained and tested, in the arm workers the page starts (one per core the browser reports). Printed, never
// asserted: a run that does not finish within the timeout is reported as such.
// Needs the built dist/ (built here with `vite build` when it is missing).
// Alone: node tests/bench/lm-page.mjs [--timeout SECONDS]
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { DIST, SUB_PATH, launchBrowser, serveStatic, root } from '../e2e/browser.mjs';
import { armsOf, parameters } from '../../web/src/labs/language-model.js';
import { workerCount } from '../../web/src/engine/arms.js';

const TIMEOUT_S = 600;

/**
 * Whether the lab's run has finished, in the page: the result table has a row for each arm, named in order, and no view
 * of the lab shows its progress (a view under way is section.busy-view, view-frame.js). The one place to change when
 * the views change how they say a run is under way (partial results may fill the table before the end).
 * Runs in the page: pass it to page.waitForFunction with the arms' names.
 * @param {string[]} names  the arms' names, in order
 */
export function finishedSignal(names) {
  const rows = [...document.querySelectorAll('#lm-table tbody tr')].map((tr) => tr.firstElementChild?.textContent);
  const busy = document.querySelectorAll('section.view.busy-view').length > 0;
  return !busy && rows.length === names.length && rows.every((name, k) => name === names[k]);
}

/**
 * The default run's wall time: {seconds (null when it did not finish), finished, timeoutSeconds, arms: [names], steps,
 * cores (navigator.hardwareConcurrency), workers (arm workers the page starts), msPerStep: {arm: ms}, table: the result
 * table's texts (a header row, then a row per arm), problems}.
 * @param {object} [o]
 * @param {number} [o.timeoutSeconds]  how long to wait for the final state
 */
export async function measureLmPage({ timeoutSeconds = TIMEOUT_S, log = () => {} } = {}) {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    execFileSync(path.join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  }
  const defaults = Object.fromEntries(parameters.map((p) => [p.name, p.default]));
  const names = armsOf(defaults).map((a) => a.name);
  const site = await serveStatic(DIST, { prefix: SUB_PATH, cors: true });
  let browser;
  try {
    browser = await launchBrowser();
    const page = await browser.newPage();
    const t0 = performance.now();
    await page.goto(`${site.url}?encoding=language_model`, { waitUntil: 'commit' });
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    log(`lm-page: ${names.length} arms (${names.join(' ')}), ${workerCount(names.length, cores)} arm workers; waiting up to ${timeoutSeconds} s ...`);
    let finished = true;
    try {
      await page.waitForFunction(finishedSignal, names, { timeout: timeoutSeconds * 1000, polling: 250 });
    } catch (e) {
      if (e.name !== 'TimeoutError') throw e;
      finished = false;
    }
    const seconds = (performance.now() - t0) / 1000;
    // The table as drawn (its header and rows' texts), and its "ms per step" column, as the page measured each arm.
    const table = await page.$$eval('#lm-table tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    const column = table[0]?.indexOf('ms per step') ?? -1;
    const msPerStep = Object.fromEntries(table.slice(1).map((r) => [r[0], Number(r[column])]));
    const result = { seconds: finished ? seconds : null, finished, timeoutSeconds, arms: names, steps: defaults.steps, cores,
      workers: workerCount(names.length, cores), msPerStep, table, problems: page.problems };
    await page.close();
    return result;
  } finally {
    await browser?.close();
    await site.close();
  }
}

/** The lines run.mjs prints. */
export function formatLmPage(r) {
  if (r.error) return `lm-page: failed: ${r.error}`;
  const head = `lm-page: the language-model lab's default run in headless Chromium (?encoding=language_model: ${r.arms.length} arms, `
    + `${r.steps} steps each; ${r.workers} arm workers for ${r.cores} cores reported)`;
  const time = r.finished ? `  navigation to the final figure: ${r.seconds.toFixed(1)} s`
    : `  did not finish within ${r.timeoutSeconds} s`;
  const arms = Object.entries(r.msPerStep).map(([name, ms]) => `${name} ${Number.isFinite(ms) ? ms.toFixed(0) : '–'}`).join(', ');
  const lines = [head, time, `  ms per step as the page measured each arm: ${arms || 'none shown'}`];
  if (r.table?.length > 1) {  // the page's table, as markdown
    lines.push('', `| ${r.table[0].join(' | ')} |`, `|${r.table[0].map(() => '---').join('|')}|`,
      ...r.table.slice(1).map((row) => `| ${row.join(' | ')} |`));
  }
  if (r.problems?.length) lines.push(`  page problems: ${r.problems.slice(0, 3).join(' | ')}`);
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const at = process.argv.indexOf('--timeout');
  const timeoutSeconds = at > 0 ? Number(process.argv[at + 1]) : TIMEOUT_S;
  console.log(formatLmPage(await measureLmPage({ timeoutSeconds, log: console.error })));
}
