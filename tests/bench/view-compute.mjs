// The views' compute time on posenc-view.wasm: every field of every core family at its defaults (the first figure of
// each family's views, as tests/wasm/view-module.test.mjs computes them), through the engine's calls (engine/calls.js
// computeFields, memo cleared by a fresh createCalls each round), timed per family and field; the median of ROUNDS.
// With a second module's folder (VIEW_BASELINE=DIR holding posenc-view.mjs + posenc-view.wasm), both are timed in the
// same rounds, alternating: the cost of compiling the view module for size (CMakeLists.txt) is the ratio.
//   node tests/bench/view-compute.mjs [rounds]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadCoreFamilies, trainedNeeds } from '../../web/src/families/compute.js';
import { FAMILIES } from '../../web/src/families/index.js';
import { loadTrained } from '../../web/src/families/trained.js';
import { computeFields, createCalls } from '../../web/src/engine/calls.js';
import { loadPosenc } from '../wasm/load.mjs';

/** Every core family's fields, as the worker computes them (loaded as the worker loads them). */
const CORE_FAMILIES = await loadCoreFamilies();

const defaultsOf = (type) => ({ encoding: type, ...Object.fromEntries(FAMILIES[type].parameters.map((p) => [p.name, p.default])) });

/** {family: {field: [ms per round]}} for each module, timed in the same rounds. */
export async function measureViewCompute({ rounds = 7, baseline = process.env.VIEW_BASELINE } = {}) {
  const modules = { 'posenc-view': await loadPosenc('view') };
  if (baseline) {
    const glue = await import(pathToFileURL(path.resolve(baseline, 'posenc-view.mjs')).href);
    modules.baseline = await glue.default({ wasmBinary: fs.readFileSync(path.resolve(baseline, 'posenc-view.wasm')) });
  }
  const jobs = [];
  for (const type of Object.keys(CORE_FAMILIES)) {
    const params = { ...defaultsOf(type), trained_head: false };
    await loadTrained(trainedNeeds(type, params, []));
    const needs = Object.keys(CORE_FAMILIES[type].fields(createCalls(modules['posenc-view']), params));
    await loadTrained(trainedNeeds(type, params, needs));
    for (const need of needs) jobs.push({ type, params, need });
  }
  const times = Object.fromEntries(Object.keys(modules).map((m) => [m, jobs.map(() => [])]));
  for (let round = 0; round < rounds + 1; round++) {
    const order = Object.keys(modules);
    if (round % 2) order.reverse();
    for (const name of order) {
      const calls = createCalls(modules[name]);
      jobs.forEach((job, j) => {
        const t = performance.now();
        try { computeFields(calls, job.type, job.params, [job.need]); } catch { /* a field this family refuses at its defaults */ }
        if (round > 0) times[name][j].push(performance.now() - t);  // round 0 warms up
      });
    }
  }
  const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
  return jobs.map((job, j) => ({ family: job.type, field: job.need,
    ...Object.fromEntries(Object.keys(modules).map((m) => [m, median(times[m][j])])) }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const rows = await measureViewCompute({ rounds: Number(process.argv[2] ?? 7) });
  rows.sort((a, b) => b['posenc-view'] - a['posenc-view']);
  const total = (key) => rows.reduce((s, r) => s + (r[key] ?? 0), 0);
  console.log(`view compute: every field of every core family at its defaults, median of rounds; slowest first`);
  for (const r of rows.slice(0, 12)) {
    console.log(`  ${r.family.padEnd(16)} ${r.field.padEnd(22)} ${r['posenc-view'].toFixed(2).padStart(8)} ms`
      + (r.baseline !== undefined ? `   baseline ${r.baseline.toFixed(2).padStart(8)} ms  x${(r['posenc-view'] / r.baseline).toFixed(2)}` : ''));
  }
  console.log(`  all ${rows.length} fields: ${total('posenc-view').toFixed(1)} ms` + (rows[0].baseline !== undefined ? `, baseline ${total('baseline').toFixed(1)} ms` : ''));
}
