// What posenc aims for, as data: each target measures a value from the bench's
// results and says whether it is met. The bench only reports (a target not met
// fails nothing). Add a target by adding an entry.
//
// measure(results) -> {value, met, detail} or null when the bench did not
// measure what the target needs (the workload was not run, or posenc lacks
// the function); {value: null, met: null, detail} says why not.
// results: {workloads: {id: {engines: {name: entry}}}, peak, peakRelaxed, kernelPaths,
// baselineBuild ({dir, version, kernelPath} or {dir, error}: the earlier build timed as 'posenc (baseline)'
// in the same rounds, from --baseline-build DIR), chromium (the same shape: workloads, peak, peakRelaxed,
// kernelPaths, relaxed, baselineBuild), bundle, embedWeight}.
// Targets without "Chromium" in their description are measured in Node; 'posenc' is the
// engine a user gets (the relaxed-SIMD path where there is one), paths.mjs names the others.
import { POSENC_BASELINE, engineOnPath } from './paths.mjs';

const POSENC = 'posenc';
const ZERO_COPY = 'posenc (zero-copy)';  // inputs and outputs in allocFloat32 buffers: no copies
const LIBRARIES = ['tfjs-wasm', 'ORT-web'];
const PEERS = [...LIBRARIES, 'plain JS'];

const median = (w, name) => (w?.engines?.[name]?.status === 'ok' ? w.engines[name].medianMs : undefined);

/** The fastest of `names` on workload w over posenc's median (how many times faster posenc is), or undefined. */
function speedup(w, names, engine = POSENC) {
  const mine = median(w, engine);
  const theirs = names.map((n) => median(w, n)).filter((m) => m !== undefined);
  if (mine === undefined || theirs.length === 0) return undefined;
  const best = Math.min(...theirs);
  const bestName = names.find((n) => median(w, n) === best);
  return { value: best / mine, against: bestName };
}

/** The smallest speed-up over the workloads whose id matches, with the workload it comes from. */
function worstSpeedup(results, match, names, threshold, engine = POSENC) {
  const found = Object.values(results.workloads).filter((w) => match(w.id))
    .map((w) => ({ id: w.id, s: speedup(w, names, engine) })).filter((x) => x.s);
  if (found.length === 0) return null;
  const worst = found.reduce((a, b) => (b.s.value < a.s.value ? b : a));
  return { value: worst.s.value, unit: 'x', met: worst.s.value >= threshold, detail: `${worst.id} vs ${worst.s.against} (${found.length} workloads)` };
}

const attention = (id) => id.startsWith('attention-');
const nOf = (id) => Number(/-n(\d+)/.exec(id)?.[1]);

/** The lowest % of `peak` an engine reaches over a section's attention workloads with n >= 512, or null. */
function worstShareOfPeak(section, engine, peak, threshold) {
  if (!peak?.gflops || !engine) return null;
  const found = Object.values(section.workloads ?? {}).filter((w) => attention(w.id) && nOf(w.id) >= 512 && w.engines?.[engine]?.gflops);
  if (found.length === 0) return null;
  const worst = found.reduce((a, b) => (b.engines[engine].gflops < a.engines[engine].gflops ? b : a));
  const value = 100 * worst.engines[engine].gflops / peak.gflops;
  return { value, unit: '%', met: value >= threshold, detail: `${worst.id}: ${worst.engines[engine].gflops.toFixed(2)} of ${peak.gflops.toFixed(2)} GFLOP/s (${found.length} workloads)` };
}

/** The Chromium section's engine on the relaxed-SIMD path, or a "not measured" answer saying why there is none. */
function relaxedInChromium(r) {
  if (!r.chromium?.workloads) return { none: null };
  const engine = engineOnPath(r.chromium, 'relaxed-simd');
  return engine ? { engine } : { none: { value: null, met: null, detail: `relaxed path: ${r.chromium.relaxed ?? 'not timed'}` } };
}

/**
 * The SIMD128 path against the baseline build (--baseline-build DIR), both timed in the same interleaved rounds
 * of the same run: the largest median(SIMD128 path) / median(baseline) over the attention workloads both timed.
 * @param {object} section  the Node results or results.chromium
 * @param {number} threshold  the largest ratio that meets the target
 */
function againstBaselineBuild(section, threshold) {
  if (!Object.keys(section?.workloads ?? {}).some(attention)) return null;
  const b = section.baselineBuild;
  if (!b) return { value: null, met: null, detail: 'no baseline build: pass --baseline-build DIR (or BENCH_BASELINE_BUILD=DIR)' };
  if (b.error) return { value: null, met: null, detail: `baseline build ${b.dir}: ${b.error}` };
  const mine = engineOnPath(section, 'simd128');
  if (!mine) return { value: null, met: null, detail: 'no SIMD128 engine timed' };
  const rows = Object.values(section.workloads).filter((w) => attention(w.id)).map((w) => {
    const a = median(w, mine), was = median(w, POSENC_BASELINE);
    return a === undefined || was === undefined ? null : { id: w.id, ratio: a / was, a, was };
  }).filter(Boolean);
  if (rows.length === 0) return { value: null, met: null, detail: `no attention workload timed on both ${mine} and ${POSENC_BASELINE}` };
  const worst = rows.reduce((x, y) => (y.ratio > x.ratio ? y : x));
  const ms = (v) => v.toPrecision(3);
  return { value: worst.ratio, unit: 'x', met: worst.ratio <= threshold,
    detail: `worst ${worst.id}: ${mine} ${ms(worst.a)} ms, baseline ${ms(worst.was)} ms; ${rows.length} workloads, same rounds; baseline ${b.version} from ${b.dir}` };
}

export const TARGETS = [
  {
    id: 'attention-vs-libraries',
    description: 'attention forward >= 1.5x faster than the fastest of tfjs and ORT, at every n (Node)',
    measure: (r) => worstSpeedup(r, attention, LIBRARIES, 1.5),
  },
  {
    id: 'attention-n128',
    description: 'attention forward >= 3x faster than the fastest of tfjs and ORT at n = 128',
    measure: (r) => worstSpeedup(r, (id) => attention(id) && nOf(id) === 128, LIBRARIES, 3),
  },
  {
    id: 'attention-causal-n2048',
    description: 'causal attention forward at n = 2048 >= 2.5x faster than the fastest of tfjs and ORT',
    measure: (r) => worstSpeedup(r, (id) => id === 'attention-d64-n2048-causal', LIBRARIES, 2.5),
  },
  {
    id: 'attention-peak',
    description: 'attention forward, SIMD128 path, >= 75% of the measured wasm SIMD peak for n >= 512 (Node)',
    // A run before kernel paths (no kernelPaths) timed the SIMD128 path as 'posenc'.
    measure: (r) => worstShareOfPeak(r, r.kernelPaths ? engineOnPath(r, 'simd128') : POSENC, r.peak, 75),
  },
  {
    id: 'chromium-attention-relaxed-vs-libraries',
    description: 'attention forward, relaxed-SIMD path, Chromium: >= 1.5x faster than the fastest of tfjs and ORT, at every n',
    measure(r) {
      const { engine, none } = relaxedInChromium(r);
      return engine ? worstSpeedup(r.chromium, attention, LIBRARIES, 1.5, engine) : none;
    },
  },
  {
    id: 'chromium-attention-fma-peak',
    description: 'attention forward, relaxed-SIMD path, Chromium: >= 90% of the measured FMA peak for n >= 512, causal included',
    measure(r) {
      const { engine, none } = relaxedInChromium(r);
      if (!engine) return none;
      return worstShareOfPeak(r.chromium, engine, r.chromium.peakRelaxed, 90)
        ?? { value: null, met: null, detail: `FMA peak: ${r.chromium.peakRelaxed?.error ?? 'not measured'}` };
    },
  },
  {
    id: 'simd128-vs-baseline',
    description: 'attention forward, SIMD128 path: median <= 1.05x the baseline build\'s, timed in the same rounds, every workload (Node)',
    measure: (r) => againstBaselineBuild(r, 1.05),
  },
  {
    id: 'chromium-simd128-vs-baseline',
    description: 'attention forward, SIMD128 path: median <= 1.05x the baseline build\'s, timed in the same rounds, every workload (Chromium)',
    measure: (r) => againstBaselineBuild(r.chromium, 1.05),
  },
  {
    id: 'rope-4096x128',
    description: 'RoPE [4096, 128] >= 3x faster than the best peer and than plain JS, both layouts',
    measure: (r) => worstSpeedup(r, (id) => id.startsWith('rope-4096x128-'), PEERS, 3),
  },
  {
    id: 'rope-4096x128-zero-copy',
    description: 'the same with posenc\'s zero-copy buffers (x and out in the wasm heap)',
    measure: (r) => worstSpeedup(r, (id) => id.startsWith('rope-4096x128-'), PEERS, 3, ZERO_COPY),
  },
  {
    id: 'sinusoid-speed',
    description: 'sinusoid table [4096, 512] >= 10x faster than the best peer (plain JS included)',
    measure: (r) => worstSpeedup(r, (id) => id === 'sinusoid-4096x512', PEERS, 10),
  },
  {
    id: 'sinusoid-speed-zero-copy',
    description: 'the same with posenc\'s zero-copy out buffer',
    measure: (r) => worstSpeedup(r, (id) => id === 'sinusoid-4096x512', PEERS, 10, ZERO_COPY),
  },
  {
    id: 'sinusoid-accuracy',
    description: 'sinusoid table [4096, 512] within 1e-6 of float64',
    measure(r) {
      const e = r.workloads['sinusoid-4096x512']?.engines?.[POSENC];
      if (e?.maxError === undefined) return null;
      return { value: e.maxError, unit: 'max |error|', met: e.maxError <= 1e-6 };
    },
  },
  {
    id: 'train-default',
    description: 'the default experiment (every family, copy) trains and tests in under 30 s (wasm, one core)',
    measure: (r) => (r.train ? { value: r.train.totalMs / 1000, unit: 's', met: r.train.totalMs < 30000, detail: `${r.train.arms.length} arms` } : null),
  },
  {
    id: 'train-lm-vs-tfjs',
    description: 'training the text transformer (the lab\'s quick model, learned positions, 16 x 64 tokens a step) >= 2x the tokens/s of tfjs-wasm',
    measure: (r) => {
      const learned = r.trainLm?.encodings?.learned, ratio = learned?.ratios['tfjs-wasm'];
      return ratio === undefined ? null : { value: ratio, unit: 'x', met: ratio >= 2,
        detail: `${Math.round(learned.engines.posenc.tokensPerSecond)} vs ${Math.round(learned.engines['tfjs-wasm'].tokensPerSecond)} tokens/s` };
    },
  },
  {
    id: 'bundle',
    description: 'posenc .wasm + glue <= 85 KB gzip',
    measure(r) {
      const b = r.bundle?.[POSENC];
      if (!b) return null;
      const kb = b.gzipBytes / 1024;
      return { value: kb, unit: 'KB', met: kb <= 85, detail: b.files.map((f) => `${f.file} ${(f.gzipBytes / 1024).toFixed(1)} KB`).join(' + ') };
    },
  },
  {
    id: 'embed-first-figure',
    description: 'every heatmap and line-chart embed <= 150 KB gzip before its first figure and its first figure <= 400 ms (cold cache)',
    measure(r) {
      const pages = (r.embedWeight?.pages ?? []).filter((p) => !p.error && p.view !== null);
      if (pages.length === 0) return null;
      const kb = (p) => p.beforeBytes / 1024;
      const heaviest = pages.reduce((a, b) => (kb(b) > kb(a) ? b : a));
      const slowest = pages.reduce((a, b) => (b.firstFigureMs > a.firstFigureMs ? b : a));
      const missed = pages.filter((p) => kb(p) > 150 || p.firstFigureMs > 400).length;
      return { value: kb(heaviest), unit: 'KB', met: missed === 0,
        detail: `heaviest: ${heaviest.name}; slowest: ${slowest.name} ${Math.round(slowest.firstFigureMs)} ms; ${missed} of ${pages.length} miss either` };
    },
  },
  {
    id: 'embed-first-figure-bytes',
    description: 'every heatmap and line-chart embed <= 150 KB gzip before its first figure (cold cache)',
    measure: (r) => worstEmbedPage(r, (p) => p.view !== null, (p) => p.beforeBytes / 1024, 'KB', (v) => v <= 150),
  },
  {
    id: 'playground-first-figure-bytes',
    description: 'the playground (index.html) <= 250 KB gzip before its first figure (cold cache)',
    measure: (r) => worstEmbedPage(r, (p) => p.view === null, (p) => p.beforeBytes / 1024, 'KB', (v) => v <= 250),
  },
  {
    id: 'first-figure-ms',
    description: 'the first figure within 400 ms of navigation start, every embed and the playground (local server, cold cache)',
    measure: (r) => worstEmbedPage(r, () => true, (p) => p.firstFigureMs, 'ms', (v) => v <= 400),
  },
  {
    id: 'phone-first-figure',
    description: 'on a phone network (150 ms, 1.6 Mbit/s, embed-weight.mjs measurePhone) every embed view and the tour\'s first stop draw within 2 s',
    measure: (r) => worstPhonePage(r, (p) => p.aimMs !== null, 2000),
  },
  {
    id: 'phone-first-figure-plots',
    description: 'on a phone network the heatmap and line-chart embeds draw within 1.5 s',
    measure: (r) => worstPhonePage(r, (p) => p.aimMs === 1500, 1500),
  },
];

/** The slowest first figure (s) over the phone-network pages that match, met when each is within `aimMs`, or null. */
function worstPhonePage(r, match, aimMs) {
  const pages = (r.phone?.pages ?? []).filter((p) => !p.error && match(p));
  if (pages.length === 0) return null;
  const worst = pages.reduce((a, b) => (b.firstFigureMs > a.firstFigureMs ? b : a));
  const missed = pages.filter((p) => p.firstFigureMs > aimMs);
  return { value: worst.firstFigureMs / 1000, unit: 's', met: missed.length === 0,
    detail: `slowest: ${worst.name}; ${missed.length} of ${pages.length} over${missed.length ? `: ${missed.map((p) => p.view).join(', ')}` : ''}` };
}

/** The worst (largest) value over the measured pages of the embed-weight section that match, or null. */
function worstEmbedPage(r, match, value, unit, ok) {
  const pages = (r.embedWeight?.pages ?? []).filter((p) => !p.error && match(p));
  if (pages.length === 0) return null;
  const worst = pages.reduce((a, b) => (value(b) > value(a) ? b : a));
  const missed = pages.filter((p) => !ok(value(p))).length;
  return { value: value(worst), unit, met: missed === 0, detail: `worst: ${worst.name}; ${missed} of ${pages.length} over` };
}

/** Every target, measured: [{id, description, value, unit, met, detail}] (value null: not measured). */
export function evaluateTargets(results) {
  return TARGETS.map((t) => {
    let m = null;
    try { m = t.measure(results); } catch (e) { m = { value: null, met: false, detail: `error: ${e.message}` }; }
    return { id: t.id, description: t.description, value: m?.value ?? null, unit: m?.unit ?? '', met: m ? m.met : null, detail: m ? (m.detail ?? '') : 'not measured' };
  });
}
