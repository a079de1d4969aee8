// `npm run bench`: posenc's wasm module against the libraries a page would
// otherwise use (TensorFlow.js wasm backend, ONNX Runtime Web wasm) and plain
// JS, on the same inputs, one thread, in this Node. Prints one table and the
// targets, and writes bench-results.json. Not a test: it fails on nothing but
// a crash.
//
//   npm run bench                         everything (~3-4 minutes on 2 cores)
//   npm run bench -- --only rope,startup  workloads whose id or group contains a word
//                                         (groups: attention rope sinusoid matmul overhead,
//                                          and the sections peak native startup bundle train train-lm lm-page page simd embed;
//                                          train also selects train-lm and lm-page (page selects lm-page too);
//                                          train-lm: tests/bench/train-lm.mjs (PyTorch-CPU peer: peers/torch_lm.py);
//                                          lm-page: tests/bench/lm-page.mjs; embed: tests/bench/embed-weight.mjs)
//   npm run bench -- --budget 2           seconds of timed rounds per workload (default 5)
//   npm run bench -- --json out.json      where the results go (default bench-results.json)
//   npm run bench -- --baseline-build DIR  an earlier build's posenc.mjs + posenc.wasm, timed as one more engine,
//                                         'posenc (baseline)', on its SIMD128 path in the same rounds as the others
//                                         (attention workloads, Node and the chromium section): the SIMD128-path
//                                         target compares the two medians of the same run
//   node tests/bench/markdown.mjs         the last results as Markdown tables (for tests/bench/README.md)
// BENCH_ONLY, BENCH_BUDGET and BENCH_BASELINE_BUILD do the same as --only, --budget and --baseline-build.
//
// Kernel paths: posenc is timed as 'posenc' (what a user gets: the relaxed-SIMD
// path where the module has it) and, when that is relaxed SIMD, as
// 'posenc (simd128)' too (a second instance on the SIMD128 path; paths.mjs).
// Node 20 runs relaxed SIMD only with --experimental-wasm-relaxed-simd: when this
// Node does not validate a relaxed module, the bench runs itself again with that
// flag (same arguments, same terminal) and exits with its code.
// Section `chromium` (tests/bench/chromium.mjs): the attention workloads and both
// peaks in headless Chromium, posenc on both paths against the peers' browser builds
// (and the --baseline-build module, served from its directory, in the same rounds).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { hasRelaxedSimd, PROBES } from './peak-core.mjs';
import { runWorkload, addRatios } from './harness.mjs';
import { workloadList } from './workloads.mjs';
import { measurePeak, measureRelaxedPeak, formatPeak } from './peak.mjs';
import { POSENC_BASELINE, POSENC_SIMD128, describePaths, formatPathsTable, peakFor } from './paths.mjs';
import { measureChromium, formatChromium } from './chromium.mjs';
import { measureBundles } from './bundle.mjs';
import { evaluateTargets } from './targets.mjs';
import * as posencPeer from './peers/posenc.mjs';
import { simdCounts } from './simd-counts.mjs';
import { measureTrain } from './train.mjs';
import { formatTrainLm, measureTrainLm } from './train-lm.mjs';
import { measurePage } from './page.mjs';
import { formatLmPage, measureLmPage } from './lm-page.mjs';
import { measureEmbedWeight, formatEmbedWeight, measurePhone, formatPhone } from './embed-weight.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

// ---- relaxed SIMD in this Node -------------------------------------------
const RELAXED_FLAG = '--experimental-wasm-relaxed-simd';
/** Whether `node FLAG` validates a relaxed-SIMD module (a Node that does not know the flag says no). */
function flagEnablesRelaxed() {
  const probe = `import('${new URL('./peak-core.mjs', import.meta.url).href}').then((m) => process.stdout.write(String(m.hasRelaxedSimd())))`;
  const r = spawnSync(process.execPath, [RELAXED_FLAG, '-e', probe], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 && r.stdout.trim() === 'true';
}
if (!hasRelaxedSimd() && !process.env.POSENC_BENCH_RELAXED_TRIED) {
  if (flagEnablesRelaxed()) {
    console.error(`bench: this Node runs relaxed SIMD only with ${RELAXED_FLAG}: running again with it`);
    const r = spawnSync(process.execPath, [...process.execArgv, RELAXED_FLAG, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
      { stdio: 'inherit', env: { ...process.env, POSENC_BENCH_RELAXED_TRIED: '1' } });
    if (r.error) throw r.error;
    process.exit(r.status ?? 1);
  }
}

// ---- options -------------------------------------------------------------
function parseArgs(argv) {
  const opts = {
    only: process.env.BENCH_ONLY ?? '', budget: Number(process.env.BENCH_BUDGET ?? 5), json: 'bench-results.json', startupRuns: 3,
    baselineBuild: process.env.BENCH_BASELINE_BUILD || undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => { if (i + 1 >= argv.length) usage(`${a} needs a value`); return argv[++i]; };
    if (a === '--only') opts.only = value();
    else if (a.startsWith('--only=')) opts.only = a.slice(7);
    else if (a === '--budget') opts.budget = Number(value());
    else if (a === '--json') opts.json = value();
    else if (a === '--baseline-build') opts.baselineBuild = value();
    else if (a === '--baseline') usage('--baseline FILE (a comparison across runs) is gone: pass --baseline-build DIR, an earlier build timed in the same run');
    else if (a === '--help' || a === '-h') usage();
    else usage(`unknown option ${a}`);
  }
  if (!(opts.budget > 0)) usage('--budget must be a positive number of seconds');
  opts.words = opts.only.split(',').map((w) => w.trim()).filter(Boolean);
  if (opts.baselineBuild) {
    opts.baselineBuild = path.resolve(opts.baselineBuild);
    const missing = ['posenc.mjs', 'posenc.wasm'].filter((f) => !fs.existsSync(path.join(opts.baselineBuild, f)));
    if (missing.length) usage(`--baseline-build ${opts.baselineBuild}: no ${missing.join(' or ')} there`);
  }
  return opts;
}

function usage(error) {
  if (error) console.error(`bench: ${error}`);
  console.error('usage: npm run bench [-- --only WORD[,WORD...]] [--budget SECONDS] [--json FILE] [--baseline-build DIR]');
  process.exit(error ? 2 : 0);
}

const opts = parseArgs(process.argv.slice(2));
const selected = (...names) => opts.words.length === 0 || opts.words.some((w) => names.some((n) => n.includes(w)));
const log = (...a) => console.error(...a);

// ---- machine -------------------------------------------------------------
function machine() {
  const cpuinfo = fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown CPU';
  const mhz = /^cpu MHz\s*:\s*(.*)$/m.exec(cpuinfo)?.[1];
  return {
    cpu: model, mhz: mhz ? Number(mhz) : null, cores: os.availableParallelism?.() ?? os.cpus().length,
    node: process.version, v8: process.versions.v8, platform: `${os.platform()} ${os.release()}`,
    loadAverageAtStart: os.loadavg()[0],
  };
}

// ---- native --------------------------------------------------------------
/** build/native/posenc_bench --json, if it was built: {workload_id: {median_ms, ...}}. */
function runNative() {
  const bin = path.join(root, 'build/native/posenc_bench');
  if (!fs.existsSync(bin)) return { status: 'not built', path: path.relative(root, bin) };
  try {
    const text = execFileSync(bin, ['--json'], { encoding: 'utf8', timeout: 240_000, maxBuffer: 16 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
    const start = text.indexOf('{');
    return { status: 'ok', path: path.relative(root, bin), results: JSON.parse(text.slice(start)) };
  } catch (e) {
    return { status: 'failed', path: path.relative(root, bin), error: String(e.message).split('\n')[0] };
  }
}

// ---- startup -------------------------------------------------------------
const STARTUP_PEERS = ['posenc', 'tfjs', 'ort', 'plain-js'];

/** Median over fresh processes of import-to-first-result ms, per engine. */
function measureStartup(runs) {
  const out = {};
  for (const peer of STARTUP_PEERS) {
    const samples = [];
    let name = peer;
    let error;
    for (let i = 0; i < runs; i++) {
      try {
        const line = execFileSync(process.execPath, [...process.execArgv, path.join(here, 'startup.mjs'), peer], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
        const r = JSON.parse(line.trim().split('\n').pop());
        name = r.engine;
        samples.push(r);
      } catch (e) {
        error = String(e.stderr || e.message).trim().split('\n').pop();
        break;
      }
    }
    const sorted = (key) => samples.map((s) => s[key]).sort((a, b) => a - b);
    out[name] = samples.length
      ? { medianMs: sorted('ms')[samples.length >> 1], importMs: sorted('importMs')[samples.length >> 1], runs: samples.length }
      : { error };
  }
  return out;
}

// ---- formatting ----------------------------------------------------------
function fmtMs(ms) {
  if (ms === undefined || ms === null || Number.isNaN(ms)) return '';
  if (ms < 0.1) return `${(ms * 1000).toPrecision(3)} us`;
  return `${ms < 1000 ? ms.toPrecision(3) : ms.toFixed(0)} ms`;
}
const fmtErr = (e) => (e === undefined ? '' : e === 0 ? '0' : e.toExponential(0));
const pad = (s, w) => (s.length >= w ? s : s + ' '.repeat(w - s.length));

/** Two text lines for one engine's cell: time and ratio; error, GFLOP/s and % of peak (that engine's peak: paths.mjs). */
function cell(entry, peak, engineName) {
  if (!entry || entry.status === 'absent') return ['-', ''];
  if (entry.status === 'wrong') return ['WRONG', `err ${fmtErr(entry.maxError)}`];
  if (entry.status === 'failed') return ['failed', (entry.error ?? '').slice(0, 22)];
  const ratio = entry.ratio !== undefined && engineName !== 'posenc' ? ` x${entry.ratio.toFixed(2)}` : '';
  let second = entry.maxError !== undefined ? `err ${fmtErr(entry.maxError)}` : '';
  if (entry.gflops) {
    second += `${second ? ' ' : ''}${entry.gflops.toFixed(1)} GF/s`;
    if (peak && engineName !== 'native') second += ` ${Math.round(100 * entry.gflops / peak)}%`;
  }
  const rounds = entry.retiredAfter ? ` (${entry.rounds} r)` : '';
  return [`${fmtMs(entry.medianMs)}${ratio}${rounds}`, second];
}

function printTable(results, columns) {
  const W0 = 32, W = 26;
  const lines = [];
  const sep = '-'.repeat(W0 + columns.length * (W + 2));
  lines.push(pad('workload', W0) + columns.map((c) => '| ' + pad(c, W)).join(''));
  lines.push(sep);
  for (const w of Object.values(results.workloads)) {
    const cells = columns.map((c) => cell(w.engines[c], peakFor(results, c), c));
    lines.push(pad(w.title, W0) + cells.map(([a]) => '| ' + pad(a, W)).join(''));
    const rounds = w.rounds !== undefined ? `  (${w.rounds} rounds)` : '';
    lines.push(pad(rounds, W0) + cells.map(([, b]) => '| ' + pad(b, W)).join(''));
  }
  lines.push(sep);
  return lines.join('\n');
}

// ---- main ----------------------------------------------------------------
const results = { date: new Date().toISOString(), machine: machine(), options: { only: opts.only, budgetSeconds: opts.budget }, workloads: {} };
const m = results.machine;
console.log(`posenc bench: ${m.cpu}${m.mhz ? ` (${(m.mhz / 1000).toFixed(2)} GHz nominal)` : ''}, ${m.cores} cores, Node ${m.node} (V8 ${m.v8}), ${m.platform}`);
console.log(`load average at start: ${m.loadAverageAtStart.toFixed(2)}${m.loadAverageAtStart > 0.7 ? '  (other work is running: expect noise; ratios are from interleaved rounds)' : ''}`);

const chosen = workloadList().filter((w) => selected(w.id, w.group));
const needsPeak = selected('peak') || chosen.some((w) => w.flops);
const SIMD_PEAK = `wasm SIMD peak, one core (${PROBES.simd.label})`;
const FMA_PEAK = `FMA peak, one core (${PROBES.relaxed.label})`;
if (needsPeak) {
  log('measuring the wasm SIMD peak and the relaxed-SIMD FMA peak ...');
  results.peak = await measurePeak();
  results.peakRelaxed = await measureRelaxedPeak();
  console.log(formatPeak(SIMD_PEAK, results.peak));
  console.log(formatPeak(FMA_PEAK, results.peakRelaxed));
  if (results.peakRelaxed.gflops) console.log(`  FMA peak / SIMD peak: ${(results.peakRelaxed.gflops / results.peak.gflops).toFixed(2)}x`);
}

// Engines, in column order.
const engines = [];
if (chosen.length > 0) {
  const module = await posencPeer.loadModule();
  const { paths, relaxed } = posencPeer.kernelPaths(module);
  results.relaxed = relaxed;
  posencPeer.useKernelPath(module, paths[0]);
  engines.push(await posencPeer.create({ module }));
  if (paths.includes('simd128') && paths[0] !== 'simd128') {
    // The SIMD128 path in an instance of its own, so no call switches paths inside the timing.
    const second = posencPeer.useKernelPath(await posencPeer.loadModule(), 'simd128');
    engines.push(await posencPeer.create({ module: second, name: POSENC_SIMD128 }));
  }
  if (posencPeer.hasZeroCopy(module)) engines.push(await posencPeer.create({ zeroCopy: true, module: posencPeer.useKernelPath(await posencPeer.loadModule(), paths[0]) }));
  results.kernelPaths = Object.fromEntries(engines.map((e) => [e.name, e.kernelPath]));
  if (opts.baselineBuild) {
    // The earlier build, attention only, on its SIMD128 path, in the same rounds (targets.mjs, SIMD128 path vs baseline).
    try {
      const b = await posencPeer.createBaseline(opts.baselineBuild);
      engines.push(b);
      results.baselineBuild = { dir: opts.baselineBuild, version: b.version, kernelPath: b.kernelPath, attention: typeof b.attentionForward === 'function' };
    } catch (e) {
      results.baselineBuild = { dir: opts.baselineBuild, error: String(e.message).split('\n')[0] };
      console.log(`${POSENC_BASELINE}: could not start: ${results.baselineBuild.error}`);
    }
  }
  for (const peer of ['tfjs', 'ort', 'plain-js']) {
    try {
      engines.push(await (await import(`./peers/${peer}.mjs`)).create());
    } catch (e) {
      console.log(`${peer}: could not start: ${e.message}`);
    }
  }
  results.engines = engines.map((e) => ({ name: e.name, version: e.version, notes: e.notes, kernelPath: e.kernelPath }));
  console.log('\nengines:');
  for (const e of engines) console.log(`  ${pad(e.name, 20)} ${e.version}; ${e.notes}`);
  if (typeof module.attentionForward !== 'function') console.log('  (posenc: this build has no attentionForward: its attention cells are empty)');
  if (!posencPeer.hasZeroCopy(module)) console.log('  (posenc: this build has no allocFloat32: no zero-copy column)');
  console.log(`  ${describePaths(results)}`);
}

for (const w of chosen) {
  const t0 = performance.now();
  const { input, reference } = w.make();
  log(`${w.id}: reference in ${((performance.now() - t0) / 1000).toFixed(1)} s, timing ...`);
  const r = await runWorkload({ ...w, input, reference }, engines, { budgetMs: opts.budget * 1000, log });
  results.workloads[w.id] = r;
  log(`  ${r.rounds} rounds, ${((performance.now() - t0) / 1000).toFixed(1)} s: ${Object.entries(r.engines).filter(([, e]) => e.medianMs).map(([n, e]) => `${n} ${fmtMs(e.medianMs)}`).join(', ')}`);
}
if (results.peak) {
  // The peaks again, at the end: other work on the machine lowers one measurement; the
  // machine's peak is the higher. The % columns and the targets use the higher.
  const again = async (peak, measure, label) => {
    if (!peak?.gflops) return;
    const p = await measure({ seconds: 0.3 });
    peak.atStart = peak.gflops;
    peak.atEnd = p.gflops;
    peak.gflops = Math.max(peak.atStart, p.gflops);
    console.log(`${label} again at the end: ${p.gflops.toFixed(2)} GFLOP/s; % of peak below uses ${peak.gflops.toFixed(2)}`);
  };
  console.log('');
  await again(results.peak, measurePeak, 'wasm SIMD peak');
  await again(results.peakRelaxed, measureRelaxedPeak, 'FMA peak');
}
results.graphChoices = Object.fromEntries(engines.filter((e) => e.choices && Object.keys(e.choices).length).map((e) => [e.name, { ...e.choices }]));
const tfjs = engines.find((e) => e.leakedTensors);
if (tfjs) results.tfjsLeakedTensors = tfjs.leakedTensors();
for (const e of engines) await e.dispose?.();

if (selected('native') || chosen.length > 0) {
  results.native = runNative();
  if (results.native.status === 'ok') {
    const known = new Map(workloadList().map((w) => [w.id, w]));
    for (const [id, n] of Object.entries(results.native.results)) {
      if (known.has(id) && !chosen.some((w) => w.id === id)) continue;   // not selected by --only
      const w = results.workloads[id] ?? (results.workloads[id] = { id, title: `${id} (native only)`, engines: {} });
      w.engines.native = { status: 'ok', medianMs: n.median_ms, ...n };
      if (w.flops) w.engines.native.gflops = w.flops / (n.median_ms * 1e6);
      addRatios(w);
    }
  }
}

if (selected('startup')) {
  log('startup: fresh processes ...');
  results.startup = measureStartup(opts.startupRuns);
}
if (selected('bundle')) results.bundle = measureBundles();
if (selected('train')) {
  log('train: the default experiment, arm by arm ...');
  results.train = await measureTrain();
}
if (selected('train-lm')) {
  log('train-lm: the lab\'s quick text transformer per encoding in posenc, PyTorch-CPU and (learned) tfjs-wasm, chunk by chunk ...');
  results.trainLm = await measureTrainLm({ log });
}
if (selected('lm-page', 'train')) {
  log('lm-page: the language-model lab\'s default run in headless Chromium, navigation to the final figure ...');
  try { results.lmPage = await measureLmPage({ log }); } catch (e) { results.lmPage = { error: String(e.message).split('\n')[0] }; }
}
if (selected('page')) {
  log('page: the built playground in headless Chromium (dragging base, typing 500 tokens, pasting a 12 MB config) ...');
  try { results.page = await measurePage(); } catch (e) { results.page = { error: String(e.message).split('\n')[0] }; }
}
if (selected('embed', 'embed-weight')) {
  log('embed: every embed view and the playground from the built dist/ in headless Chromium, cold cache (bytes and time to the first figure) ...');
  try { results.embedWeight = await measureEmbedWeight({ log }); } catch (e) { results.embedWeight = { error: String(e.message).split('\n')[0] }; }
  log('embed (phone network): every embed view, the tour\'s first stop and the playground through Chromium\'s network emulation (150 ms, 1.6 Mbit/s) ...');
  try { results.phone = await measurePhone({ log }); } catch (e) { results.phone = { error: String(e.message).split('\n')[0] }; }
}
if (selected('chromium')) {
  log('chromium: the attention workloads and both peaks in headless Chromium, posenc on each kernel path against the peers\' browser builds ...');
  try { results.chromium = await measureChromium({ budgetSeconds: opts.budget, baselineBuild: opts.baselineBuild, log }); } catch (e) { results.chromium = { error: String(e.message).split('\n')[0] }; }
}
if (selected('simd')) {
  log('simd: counting v128 instructions per kernel (a second build with function names) ...');
  try { results.simdCounts = simdCounts(); } catch (e) { results.simdCounts = { error: String(e.message).split('\n')[0] }; }
}

// ---- report --------------------------------------------------------------
const columns = engines.map((e) => e.name);
if (results.native?.status === 'ok') columns.push('native');
if (Object.keys(results.workloads).length > 0) {
  console.log('\nmedian time per call; xN = that median / posenc\'s median in the same run (> 1: posenc is faster);');
  console.log('err = max |error| against the float64 reference; GF/s and % of peak for attention and matmul (the FMA peak for the');
  console.log('relaxed-SIMD path, the wasm SIMD peak for the SIMD128 path and the peers);');
  console.log('(N r): an engine more than 8x slower than posenc (or the fastest), timed for N rounds only;');
  console.log('(attention flops: 2 n d_model d_head x 3 + 2 n^2 d_head x 2, the n^2 part halved when causal).');
  console.log('RoPE: tfjs, ORT and plain JS are handed the cos/sin tables [n, d/2]; posenc computes its own angles.\n');
  console.log(printTable(results, columns));
  if (Object.keys(results.kernelPaths ?? {}).length) {
    console.log(`\nposenc in Node, ${describePaths(results)}; best library / posenc from the same run (> 1: posenc is faster)`);
    console.log(formatPathsTable(results));
  }
}
if (results.native) console.log(results.native.status === 'ok' ? `native: ${results.native.path} --json` : `native: ${results.native.status}${results.native.error ? `: ${results.native.error}` : ''}`);
for (const [name, choices] of Object.entries(results.graphChoices ?? {})) {
  console.log(`${name} graph per shape (the faster, measured before timing):`);
  for (const [key, choice] of Object.entries(choices)) console.log(`  ${key}: ${choice}`);
}
if (results.tfjsLeakedTensors !== undefined) console.log(`tfjs tensors leaked over the run: ${results.tfjsLeakedTensors}`);

if (results.startup) {
  console.log('\nstartup: import to first result (RoPE [1, 8]), fresh process, median of runs');
  for (const [name, s] of Object.entries(results.startup)) {
    console.log(`  ${pad(name, 20)} ${s.error ? `failed: ${s.error}` : `${fmtMs(s.medianMs)} (import + create ${fmtMs(s.importMs)}, ${s.runs} runs)`}`);
  }
}
if (results.bundle) {
  console.log('\nbundle: gzip -9 of what a browser downloads');
  for (const [name, b] of Object.entries(results.bundle)) {
    console.log(`  ${pad(name, 20)} ${pad(`${(b.gzipBytes / 1024).toFixed(1)} KB`, 11)} (raw ${(b.rawBytes / 1024).toFixed(0)} KB: ${b.files.map((f) => path.basename(f.file)).join(' + ')})`);
  }
}

if (results.train) {
  console.log('\ntrain: the page\'s default experiment (copy, 400 steps at L_train 32), pe.train() per arm; accuracy at 1, 2, 4, 8 x L_train');
  for (const a of results.train.arms) console.log(`  ${pad(a.name, 20)} ${pad(fmtMs(a.ms), 10)} ${a.accuracy.map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`  ${pad('total', 20)} ${fmtMs(results.train.totalMs)}`);
}

if (results.trainLm) console.log(`\n${formatTrainLm(results.trainLm)}`);

if (results.lmPage) console.log(`\n${formatLmPage(results.lmPage)}`);

if (results.page) {
  console.log('\npage: the longest main-thread task (reported, not enforced; the engine works in a Web Worker)');
  if (results.page.error) console.log(`  failed: ${results.page.error}`);
  else {
    const { dragBase, typing, paste } = results.page;
    console.log(`  ${pad('drag base, n 4096, d_model 1024', 36)} ${pad(fmtMs(dragBase.longestMs), 10)} (${dragBase.longTasks} tasks over 50 ms; heatmap drawn ${dragBase.heatmapDraws} times)`);
    console.log(`  ${pad('type into 500 tokens (rope)', 36)} ${pad(fmtMs(typing.longestMs), 10)} (${typing.longTasks} tasks over 50 ms)`);
    console.log(`  ${pad(`paste a ${paste.megabytes.toFixed(1)} MB config.json`, 36)} ${pad(fmtMs(paste.longestMs), 10)} (${paste.longTasks} tasks over 50 ms)`);
  }
}

if (results.embedWeight) {
  console.log('');
  console.log(results.embedWeight.error ? `embed weight: failed: ${results.embedWeight.error}` : formatEmbedWeight(results.embedWeight));
}
if (results.phone) {
  console.log('');
  console.log(results.phone.error ? `phone network: failed: ${results.phone.error}` : formatPhone(results.phone));
}

if (results.chromium) {
  console.log('');
  console.log(results.chromium.error ? `chromium: failed: ${results.chromium.error}` : formatChromium(results.chromium));
}

if (results.simdCounts) {
  console.log('\nSIMD instructions in the hot kernels of the wasm module (wasm-dis of a build with function names):');
  if (results.simdCounts.error) console.log(`  failed: ${results.simdCounts.error}`);
  else for (const [label, c] of Object.entries(results.simdCounts))
    console.log(`  ${pad(label, 52)} ${String(c.simd).padStart(5)} v128 ops, ${String(c.f32x4_mul).padStart(4)} f32x4.mul`);
}

results.targets = evaluateTargets(results);
console.log('\ntargets (reported, not enforced):');
for (const t of results.targets) {
  const value = t.value === null ? '' : t.unit === 'max |error|' ? t.value.toExponential(1) : `${t.value.toFixed(2)}${t.unit === 'x' ? 'x' : ` ${t.unit}`}`;
  const state = t.met === null ? 'not measured' : t.met ? 'met' : 'NOT MET';
  const detail = t.detail && t.detail !== 'not measured' ? `  [${t.detail}]` : '';
  console.log(`  ${pad(state, 13)} ${pad(value, 12)} ${t.description}${detail}`);
}

results.machine.loadAverageAtEnd = os.loadavg()[0];
const jsonPath = path.resolve(root, opts.json);
fs.writeFileSync(jsonPath, JSON.stringify(results, (k, v) => (v instanceof Float32Array || v instanceof Float64Array ? undefined : v), 2) + '\n');
console.log(`\nload average at end: ${results.machine.loadAverageAtEnd.toFixed(2)}; results: ${path.relative(process.cwd(), jsonPath) || jsonPath}`);
