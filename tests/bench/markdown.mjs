// Prints the results of the last `npm run bench` (bench-results.json) as
// Markdown tables, for tests/bench/README.md:  node tests/bench/markdown.mjs [file]
import fs from 'node:fs';
import { describePaths, markdownPathsTable, peakFor } from './paths.mjs';
import { formatLmPage } from './lm-page.mjs';

const file = process.argv[2] ?? 'bench-results.json';
const r = JSON.parse(fs.readFileSync(file, 'utf8'));
const columns = [...new Set(Object.values(r.workloads).flatMap((w) => Object.keys(w.engines)))];

const ms = (v) => (v < 0.1 ? `${(v * 1000).toPrecision(3)} µs` : `${v < 1000 ? v.toPrecision(3) : v.toFixed(0)} ms`);
function cell(e, name) {
  if (!e || e.status === 'absent') return '–';
  if (e.status !== 'ok') return e.status;
  let s = ms(e.medianMs);
  if (e.ratio !== undefined && name !== 'posenc') s += ` (×${e.ratio.toFixed(2)})`;
  const peak = peakFor(r, name);   // the FMA peak for the relaxed-SIMD path, the wasm SIMD peak for the others
  if (e.gflops && peak && name !== 'native') s += `<br>${e.gflops.toFixed(1)} GFLOP/s, ${Math.round(100 * e.gflops / peak)}%`;
  if (e.maxError !== undefined) s += `<br>err ${e.maxError === 0 ? '0' : e.maxError.toExponential(0)}`;
  return s;
}

const m = r.machine;
console.log(`${m.cpu}, ${m.cores} cores, Node ${m.node}; load average ${m.loadAverageAtStart.toFixed(1)} at start, ${m.loadAverageAtEnd?.toFixed(1)} at end.`);
const peaks = (section, where) => {
  const g = (p) => (p?.gflops ? `${p.gflops.toFixed(1)} GFLOP/s` : `not measured${p?.error ? ` (${p.error})` : ''}`);
  return `Peaks of one core in ${where}: wasm SIMD (f32x4.mul + f32x4.add) ${g(section.peak)}, FMA (f32x4.relaxed_madd) ${g(section.peakRelaxed)}.`;
};
if (r.peak) console.log(peaks(r, `Node ${m.node}`));
if (r.kernelPaths) console.log(`posenc's ${describePaths(r)}.`);
console.log('');
if (columns.length) {
  console.log(`| workload | ${columns.join(' | ')} |`);
  console.log(`|---|${columns.map(() => '---').join('|')}|`);
  for (const w of Object.values(r.workloads)) console.log(`| ${w.title} | ${columns.map((c) => cell(w.engines[c], c)).join(' | ')} |`);
}
const pathsTable = markdownPathsTable(r);
if (pathsTable) console.log(`\nAttention in Node, posenc's kernel paths (best library / posenc from the same run; % of the FMA peak for the relaxed-SIMD path, of the SIMD peak for SIMD128):\n\n${pathsTable}`);
if (r.chromium?.workloads) {
  const c = r.chromium;
  console.log(`\nAttention in ${c.browser} (headless Chromium), one thread (tfjs-backend-wasm and onnxruntime-web browser builds, SIMD on). ${peaks(c, 'Chromium')} posenc's ${describePaths(c)}.\n`);
  console.log(markdownPathsTable(c));
}

if (r.startup) {
  console.log('\n| startup (import to first result) | ms |\n|---|---|');
  for (const [name, s] of Object.entries(r.startup)) console.log(`| ${name} | ${s.error ? 'failed' : s.medianMs.toFixed(1)} |`);
}
if (r.bundle) {
  console.log('\n| bundle (gzip -9) | KB | files |\n|---|---|---|');
  for (const [name, b] of Object.entries(r.bundle)) console.log(`| ${name} | ${(b.gzipBytes / 1024).toFixed(1)} | ${b.files.map((f) => f.file.split('/').pop()).join(', ')} |`);
}
if (r.trainLm?.encodings) {
  const t = r.trainLm;
  const names = [...new Set(Object.values(t.encodings).flatMap((e) => Object.keys(e.engines)))];
  const loss = (l) => `${l[0].toFixed(2)} → ${(l.slice(-10).reduce((a, b) => a + b, 0) / Math.min(10, l.length)).toFixed(2)}`;
  const cell = (enc, name) => {
    const e = enc.engines[name];
    if (!e) return '–';
    if (e.error) return 'failed';
    return `${Math.round(e.tokensPerSecond)}${enc.ratios[name] ? ` (×${enc.ratios[name].toFixed(2)})` : ''}<br>loss ${loss(e.losses)}`;
  };
  console.log(`\n| train-lm, tokens/s (${t.steps} steps of ${t.tokensPerStep} tokens, ${t.text.vocab} characters; loss: step 1 → the last 10) | ${names.join(' | ')} |`);
  console.log(`|---|${names.map(() => '---').join('|')}|`);
  for (const [type, enc] of Object.entries(t.encodings)) console.log(`| ${type} | ${names.map((n) => cell(enc, n)).join(' | ')} |`);
}
if (r.lmPage) console.log(`\n${formatLmPage(r.lmPage)}`);
if (r.embedWeight?.pages) {
  const e = r.embedWeight, kb = (b) => (b / 1024).toFixed(1);
  console.log(`\n| embed weight (cold cache, gzip -${e.gzipLevel}) | KB before the first figure | KB settled | first figure, ms | largest before the figure |\n|---|---|---|---|---|`);
  for (const p of e.pages) {
    if (p.error) { console.log(`| ${p.name} | failed | | | |`); continue; }
    const top = p.top.slice(0, 3).map(([f, b]) => `${f.split('/').pop().replace(/-[\w-]{8}(\.\w+)$/, '$1')} ${kb(b)}`).join(', ');
    console.log(`| ${p.name} | ${kb(p.beforeBytes)} | ${kb(p.settledBytes)} | ${Math.round(p.firstFigureMs)} | ${top} |`);
  }
}
if (r.targets) {
  console.log('\n| target | measured | |\n|---|---|---|');
  for (const t of r.targets) {
    const v = t.value === null ? '–' : t.unit === 'max |error|' ? t.value.toExponential(1) : `${t.value.toFixed(2)}${t.unit === 'x' ? '×' : ` ${t.unit}`}`;
    const why = t.met === null && t.detail && t.detail !== 'not measured' ? ` (${t.detail})` : '';
    console.log(`| ${t.description} | ${v} | ${t.met === null ? `not measured${why}` : t.met ? 'met' : 'not met'} |`);
  }
}
