// The Chromium bench, inside the page (tests/bench/chromium.html): the same
// engines as the Node bench, built by the same code (peers/*-engine.mjs), from
// the browser builds of the libraries served from node_modules, and the same
// harness (harness.mjs). tests/bench/chromium.mjs drives it through window.bench.
import { runWorkload } from './harness.mjs';
import { PROBES, hasRelaxedSimd, measurePeakBytes } from './peak-core.mjs';
import { POSENC_SIMD128 } from './paths.mjs';
import { posencEngine, baselineEngine, kernelPaths, useKernelPath } from './peers/posenc-engine.mjs';
import { startTfjsWasm, tfjsEngine } from './peers/tfjs-engine.mjs';
import { ortEngine } from './peers/ort-engine.mjs';

const NODE_MODULES = '/node_modules/';
const engines = [];
const problems = [];

/** base64 of a typed array's bytes -> that typed array (Float32Array or Float64Array). */
function decode(base64, Type) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return new Type(bytes.buffer);
}

/**
 * Loads posenc (one instance per kernel path), the baseline build when there is one, tfjs-wasm and ORT-web;
 * an engine that cannot start is left out and said in `problems`.
 * @param {{baseline?: string | null}} [o]  baseline: the URL of an earlier build's posenc.mjs ('posenc (baseline)', SIMD128, attention only)
 * @returns {Promise<{engines: {name, version, notes, kernelPath}[], kernelPaths, relaxed, relaxedSimd, userAgent, crossOriginIsolated, problems,
 *   baselineBuild?: {version, kernelPath} | {error}}>}  kernelPaths: this module's engines only
 */
async function setup({ baseline = null } = {}) {
  const { default: createPosenc } = await import('/web/generated/posenc.mjs');
  const pe = await createPosenc();
  const { paths, relaxed } = kernelPaths(pe);
  engines.push(posencEngine(useKernelPath(pe, paths[0])));
  if (paths[0] !== 'simd128') engines.push(posencEngine(useKernelPath(await createPosenc(), 'simd128'), { name: POSENC_SIMD128 }));
  const kernelPathsOfThisModule = Object.fromEntries(engines.map((e) => [e.name, e.kernelPath]));
  let baselineBuild;
  if (baseline) {
    try {
      const { default: createBaseline } = await import(baseline);
      const b = baselineEngine(await createBaseline(), baseline);
      engines.push(b);
      baselineBuild = { version: b.version, kernelPath: b.kernelPath, attention: typeof b.attentionForward === 'function' };
    } catch (e) {
      baselineBuild = { error: String(e?.message ?? e).split('\n')[0] };
      problems.push(`posenc (baseline): could not start: ${baselineBuild.error}`);
    }
  }
  try {
    // The UMD builds of chromium.html: window.tf, and window.tf.wasm (the backend's exports).
    engines.push(tfjsEngine(await startTfjsWasm({ tf: window.tf, backend: window.tf.wasm }, `${NODE_MODULES}@tensorflow/tfjs-backend-wasm/dist/`)));
  } catch (e) {
    problems.push(`tfjs-wasm: could not start: ${e.message}`);
  }
  try {
    // The wasm-only ES module build with its glue bundled, handed the SIMD binary as bytes, as in Node.
    const ort = await import(`${NODE_MODULES}onnxruntime-web/dist/ort.wasm.bundle.min.mjs`);
    const response = await fetch(`${NODE_MODULES}onnxruntime-web/dist/ort-wasm-simd-threaded.wasm`);
    if (!response.ok) throw new Error(`ort-wasm-simd-threaded.wasm: HTTP ${response.status}`);
    engines.push(ortEngine(ort, new Uint8Array(await response.arrayBuffer())));
  } catch (e) {
    problems.push(`ORT-web: could not start: ${e.message}`);
  }
  return {
    engines: engines.map((e) => ({ name: e.name, version: e.version, notes: e.notes, kernelPath: e.kernelPath })),
    kernelPaths: kernelPathsOfThisModule, baselineBuild,
    relaxed, relaxedSimd: hasRelaxedSimd(), userAgent: navigator.userAgent, crossOriginIsolated: self.crossOriginIsolated, problems,
  };
}

/**
 * A peak of this page's engine (peak-core.mjs): 'simd' (/build/bench/peak.wasm) or 'relaxed'
 * (/build/bench/peak-relaxed.wasm), or {error}.
 */
async function peak(kind, seconds) {
  const probe = PROBES[kind];
  if (kind === 'relaxed' && !hasRelaxedSimd()) return { error: 'this browser does not run relaxed SIMD' };
  const response = await fetch(`/build/bench/${probe.file}`);
  if (!response.ok) return { error: `build/bench/${probe.file}: HTTP ${response.status}` };
  return measurePeakBytes(await response.arrayBuffer(), probe.accumulators, { seconds });
}

/**
 * Times one workload on every engine (harness.mjs).
 * @param {object} w  {id, title, group, method, tolerance, flops, scalars: {n, dModel, dHead, causal}, arrays: {name: base64 float32}, reference: base64 float64}
 */
async function run(w, budgetMs) {
  const input = { ...w.scalars };
  for (const [name, base64] of Object.entries(w.arrays)) input[name] = decode(base64, Float32Array);
  const log = [];
  const result = await runWorkload({ ...w, input, reference: decode(w.reference, Float64Array) }, engines,
    { budgetMs, log: (...a) => log.push(a.join(' ')) });
  return { ...result, log };
}

/** ORT's graph choice per shape and tfjs's leaked tensors; disposes the engines. */
async function finish() {
  const out = {
    graphChoices: Object.fromEntries(engines.filter((e) => e.choices && Object.keys(e.choices).length).map((e) => [e.name, { ...e.choices }])),
    tfjsLeakedTensors: engines.find((e) => e.leakedTensors)?.leakedTensors(),
  };
  for (const e of engines) await e.dispose?.();
  return out;
}

window.bench = { setup, peak, run, finish };
