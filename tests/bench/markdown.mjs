// Prints the results of the last `npm run bench` (bench-results.json) as
// Markdown tables, for the README:  node tests/bench/markdown.mjs [file]
import fs from 'node:fs';

const file = process.argv[2] ?? 'bench-results.json';
const r = JSON.parse(fs.readFileSync(file, 'utf8'));
const columns = [...new Set(Object.values(r.workloads).flatMap((w) => Object.keys(w.engines)))];

const ms = (v) => (v < 0.1 ? `${(v * 1000).toPrecision(3)} µs` : `${v < 1000 ? v.toPrecision(3) : v.toFixed(0)} ms`);
function cell(e, name) {
  if (!e || e.status === 'absent') return '–';
  if (e.status !== 'ok') return e.status;
  let s = ms(e.medianMs);
  if (e.ratio !== undefined && name !== 'posenc') s += ` (×${e.ratio.toFixed(2)})`;
  if (e.gflops && r.peak?.gflops && name !== 'native') s += `<br>${e.gflops.toFixed(1)} GFLOP/s, ${Math.round(100 * e.gflops / r.peak.gflops)}%`;
  if (e.maxError !== undefined) s += `<br>err ${e.maxError === 0 ? '0' : e.maxError.toExponential(0)}`;
  return s;
}

const m = r.machine;
console.log(`${m.cpu}, ${m.cores} cores, Node ${m.node}; load average ${m.loadAverageAtStart.toFixed(1)} at start, ${m.loadAverageAtEnd?.toFixed(1)} at end.`);
if (r.peak) console.log(`wasm SIMD peak (one core, f32x4 mul + add): ${r.peak.gflops.toFixed(1)} GFLOP/s.\n`);
console.log(`| workload | ${columns.join(' | ')} |`);
console.log(`|---|${columns.map(() => '---').join('|')}|`);
for (const w of Object.values(r.workloads)) console.log(`| ${w.title} | ${columns.map((c) => cell(w.engines[c], c)).join(' | ')} |`);

if (r.startup) {
  console.log('\n| startup (import to first result) | ms |\n|---|---|');
  for (const [name, s] of Object.entries(r.startup)) console.log(`| ${name} | ${s.error ? 'failed' : s.medianMs.toFixed(1)} |`);
}
if (r.bundle) {
  console.log('\n| bundle (gzip -9) | KB | files |\n|---|---|---|');
  for (const [name, b] of Object.entries(r.bundle)) console.log(`| ${name} | ${(b.gzipBytes / 1024).toFixed(1)} | ${b.files.map((f) => f.file.split('/').pop()).join(', ')} |`);
}
if (r.trainLm) {
  const t = r.trainLm;
  console.log(`\n| train-lm (${t.steps} steps of ${t.tokensPerStep} tokens; ${t.text.vocab} characters) | tokens/s | loss, first step → last |\n|---|---|---|`);
  for (const [name, e] of Object.entries(t.engines)) {
    if (e.error) console.log(`| ${name} | failed | |`);
    else console.log(`| ${name} | ${Math.round(e.tokensPerSecond)}${name !== 'posenc' && t.ratio ? ` (×${t.ratio.toFixed(2)})` : ''} | ${e.losses[0].toFixed(2)} → ${e.losses.at(-1).toFixed(2)} |`);
  }
}
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
    console.log(`| ${t.description} | ${v} | ${t.met === null ? 'not measured' : t.met ? 'met' : 'not met'} |`);
  }
}
