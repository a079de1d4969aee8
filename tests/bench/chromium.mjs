/**
 * The Chromium bench (section `chromium` of run.mjs; issue 27, point 4): the attention workloads and the two peaks
 * in headless Chromium, where the page's engine runs.
 *
 * The repository root is served by the e2e helpers' serveStatic (cross-origin isolated: COOP/COEP on the page, so
 * performance.now() has its fine resolution) and tests/bench/chromium.html opened in a fresh headless Chromium
 * (launchBrowser). The page (chromium-page.mjs) builds the same engines as the Node bench with the same code
 * (peers/*-engine.mjs): posenc from web/generated/ on each kernel path (an instance per path), TensorFlow.js
 * 4.22 with its wasm backend (the UMD builds, the non-threaded SIMD binary) and onnxruntime-web 1.30 (its wasm
 * build, the SIMD binary handed over as bytes, one thread), all from node_modules over the local server. Each
 * workload's inputs and float64 reference are made here (workloads.mjs), sent to the page, and timed there by the
 * same harness (harness.mjs: correctness check, warm-up, interleaved rounds, same-run medians). Both peaks
 * (peak.c's f32x4 mul + add, peak-relaxed.wat's f32x4.relaxed_madd) are measured in the page at the start and the
 * end; the higher of each counts.
 *
 * With baselineBuild (run.mjs --baseline-build DIR), that directory is served too, under /baseline-build/ of the same
 * origin, and its module is timed as 'posenc (baseline)' on its SIMD128 path, attention only, in the same rounds.
 *
 * Alone: node tests/bench/chromium.mjs [--budget SECONDS] [--baseline-build DIR]  (prints the table; --json: the results too)
 */
import fs from 'node:fs';
import path from 'node:path';
import { workloadList } from './workloads.mjs';
import { buildRelaxedPeak, buildSimdPeak, formatPeak } from './peak.mjs';
import { PROBES } from './peak-core.mjs';
import { POSENC_BASELINE, describePaths, formatPathsTable } from './paths.mjs';
import { launchBrowser, serveStatic, root } from '../e2e/browser.mjs';

/** The attention workloads timed in Chromium (ids of workloads.mjs). */
export const CHROMIUM_WORKLOADS = [
  ...[128, 512, 1024, 2048].flatMap((n) => [`attention-d64-n${n}`, `attention-d64-n${n}-causal`]),
  'attention-d128-n1024', 'attention-d128-n1024-causal',
];

const ISOLATED = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
const base64 = (typed) => Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength).toString('base64');

/**
 * Runs the Chromium bench.
 * @param {object} [o]
 * @param {number} [o.budgetSeconds]  seconds of timed rounds per workload (harness budget)
 * @param {number} [o.peakSeconds]  seconds per accumulator count of each peak, at the start (half at the end)
 * @param {string[]} [o.ids]  workload ids (default CHROMIUM_WORKLOADS)
 * @param {string} [o.baselineBuild]  a directory holding an earlier build's posenc.mjs and posenc.wasm
 * @param {(...a) => void} [o.log]
 * @returns {Promise<{browser, crossOriginIsolated, engines, kernelPaths, relaxed, peak, peakRelaxed, workloads, graphChoices,
 *   tfjsLeakedTensors, problems, baselineBuild?}>}  a section as paths.mjs reads it
 */
export async function measureChromium({ budgetSeconds = 5, peakSeconds = 0.6, ids = CHROMIUM_WORKLOADS, baselineBuild, log = () => {} } = {}) {
  buildSimdPeak();
  let relaxedBuildError = null;
  try { buildRelaxedPeak(); } catch (e) { relaxedBuildError = e.message; }

  const site = await serveStatic(root, { prefix: '/', htmlHeaders: ISOLATED });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    if (baselineBuild) {
      // The earlier build's two files, same origin (COEP lets them load); its glue fetches posenc.wasm next to itself.
      await page.route(`${site.origin}/baseline-build/*`, (route) => {
        const name = path.basename(new URL(route.request().url()).pathname);
        const file = path.join(baselineBuild, name);
        if (!['posenc.mjs', 'posenc.wasm'].includes(name) || !fs.existsSync(file)) return route.fulfill({ status: 404 });
        return route.fulfill({ path: file, contentType: name.endsWith('.wasm') ? 'application/wasm' : 'text/javascript' });
      });
    }
    await page.goto(`${site.url}tests/bench/chromium.html`);
    await page.waitForFunction(() => window.bench !== undefined, null, { timeout: 60000 });
    const setup = await page.evaluate(([b]) => window.bench.setup({ baseline: b }), [baselineBuild ? '/baseline-build/posenc.mjs' : null]);
    const out = {
      browser: /(?:Headless)?Chrome\/[\d.]+/.exec(setup.userAgent)?.[0] ?? setup.userAgent,
      crossOriginIsolated: setup.crossOriginIsolated, engines: setup.engines, kernelPaths: setup.kernelPaths, relaxed: setup.relaxed,
      problems: [...setup.problems], workloads: {},
    };
    if (baselineBuild) out.baselineBuild = { dir: baselineBuild, ...setup.baselineBuild };
    for (const p of setup.problems) log(`  ${p}`);

    const peaks = async (seconds) => ({
      simd: await page.evaluate(([s]) => window.bench.peak('simd', s), [seconds]),
      relaxed: relaxedBuildError ? { error: relaxedBuildError } : await page.evaluate(([s]) => window.bench.peak('relaxed', s), [seconds]),
    });
    log('  peaks ...');
    const atStart = await peaks(peakSeconds);
    out.peak = atStart.simd;
    out.peakRelaxed = atStart.relaxed;

    const byId = new Map(workloadList().map((w) => [w.id, w]));
    for (const id of ids) {
      const w = byId.get(id);
      if (!w) throw new Error(`chromium: no workload ${id}`);
      const t0 = performance.now();
      const { input, reference } = w.make();
      const arrays = {}, scalars = {};
      for (const [k, v] of Object.entries(input)) (v instanceof Float32Array ? arrays : scalars)[k] = v instanceof Float32Array ? base64(v) : v;
      const sent = { id: w.id, title: w.title, group: w.group, method: w.method, tolerance: w.tolerance, flops: w.flops, scalars, arrays, reference: base64(reference) };
      const r = await page.evaluate(([work, budgetMs]) => window.bench.run(work, budgetMs), [sent, budgetSeconds * 1000]);
      for (const line of r.log) log(line);
      delete r.log;
      out.workloads[id] = r;
      log(`  ${id}: ${r.rounds} rounds, ${((performance.now() - t0) / 1000).toFixed(1)} s: `
        + Object.entries(r.engines).filter(([, e]) => e.medianMs).map(([n, e]) => `${n} ${e.medianMs.toPrecision(3)} ms`).join(', '));
    }

    const atEnd = await peaks(peakSeconds / 2);
    for (const [key, end] of [['peak', atEnd.simd], ['peakRelaxed', atEnd.relaxed]]) {
      const p = out[key];
      if (!p?.gflops || !end?.gflops) continue;
      Object.assign(p, { atStart: p.gflops, atEnd: end.gflops, gflops: Math.max(p.gflops, end.gflops) });
    }
    Object.assign(out, await page.evaluate(() => window.bench.finish()));
    out.problems.push(...page.problems);
    return out;
  } finally {
    await browser.close();
    await site.close();
  }
}

const peakLine = (label, p) => formatPeak(label, p) + (p?.atEnd ? ` (start ${p.atStart.toFixed(1)}, end ${p.atEnd.toFixed(1)})` : '');

/** The section as run.mjs prints it: the browser, both peaks, the engines and the paths table. */
export function formatChromium(c) {
  const lines = [`chromium: the attention workloads in ${c.browser}${c.crossOriginIsolated ? ' (cross-origin isolated)' : ''}, one thread;`
    + ' same inputs, float64 check and harness as in Node; median per engine, best library / posenc from the same run (> 1: posenc is faster)'];
  lines.push(`  ${peakLine(`wasm SIMD peak (${PROBES.simd.label})`, c.peak)}`);
  lines.push(`  ${peakLine(`FMA peak (${PROBES.relaxed.label})`, c.peakRelaxed)}`);
  if (c.peak?.gflops && c.peakRelaxed?.gflops) lines.push(`  FMA peak / SIMD peak: ${(c.peakRelaxed.gflops / c.peak.gflops).toFixed(2)}x`);
  lines.push(`  ${describePaths(c)}`);
  for (const e of c.engines) lines.push(`  ${e.name.padEnd(20)} ${e.version}${e.name === POSENC_BASELINE ? ` (${c.baselineBuild?.dir}, ${e.kernelPath}, attention only)` : ''}`);
  if (c.baselineBuild?.error) lines.push(`  ${POSENC_BASELINE}: could not start: ${c.baselineBuild.error}`);
  lines.push(formatPathsTable(c));
  const wrong = Object.values(c.workloads).flatMap((w) => Object.entries(w.engines).filter(([, e]) => e.status === 'wrong' || e.status === 'failed')
    .map(([n, e]) => `${w.id} ${n}: ${e.status}${e.maxError !== undefined ? ` (max |error| ${e.maxError.toExponential(1)})` : ''}${e.error ? ` ${e.error}` : ''}`));
  if (wrong.length) lines.push(`  not timed: ${wrong.join('; ')}`);
  const errors = Object.values(c.workloads).flatMap((w) => Object.entries(w.engines).filter(([, e]) => e.maxError !== undefined).map(([, e]) => e.maxError));
  if (errors.length) lines.push(`  max |error| against float64 over every engine and workload checked: ${Math.max(...errors).toExponential(1)}`);
  for (const [name, choices] of Object.entries(c.graphChoices ?? {})) {
    lines.push(`  ${name} graph per shape: ${Object.entries(choices).map(([k, v]) => `${k.replace(/^attention /, 'n d d causal ')}: ${v.split(' (')[0]}`).join('; ')}`);
  }
  if (c.tfjsLeakedTensors) lines.push(`  tfjs tensors leaked: ${c.tfjsLeakedTensors}`);
  if (c.problems?.length) lines.push(`  page problems: ${c.problems.slice(0, 5).join('; ')}`);
  return lines.join('\n');
}

// Alone: node tests/bench/chromium.mjs [--budget SECONDS] [--baseline-build DIR] [--json]
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const i = process.argv.indexOf('--budget');
  const j = process.argv.indexOf('--baseline-build');
  const r = await measureChromium({ budgetSeconds: i > 0 ? Number(process.argv[i + 1]) : 5,
    baselineBuild: j > 0 ? path.resolve(process.argv[j + 1]) : undefined, log: console.error });
  console.log(formatChromium(r));
  if (process.argv.includes('--json')) console.log(JSON.stringify(r, null, 1));
}
