// posenc's own WebAssembly module (web/generated/posenc.{mjs,wasm}, built by
// `npm run build:wasm`; loaded by posenc.mjs in Node, by chromium-page.mjs in
// Chromium), through its public JS API (DESIGN.md): every call copies its
// inputs in and returns a fresh array.
// RoPE computes its own angles (no cos/sin tables are handed to it).
//
// posencEngine(pe, {zeroCopy: true}) is the "posenc (zero-copy)" engine: only when the
// module has pe.allocFloat32(length) -> {ptr, length, array, free()}, it fills
// wasm-memory handles once per input array and reuses them (and an `out`
// handle for applyRope / positionTable), so a call moves no bytes across the
// JS/wasm boundary. Its methods return a view of wasm memory (the harness
// copies it before checking); it exists to show what the copies cost.
//
// Kernel paths: a module with pe.kernelPath() -> 'relaxed-simd' | 'simd128' and
// pe.useKernels(path) (RangeError, .param 'path', when relaxed SIMD is not
// available) runs its hot micro-kernels on either; a module without them has the
// SIMD128 path only. This file touches no Node API (Node and Chromium share it).
import { POSENC_BASELINE } from '../paths.mjs';

/** Whether the module has the zero-copy handle API. */
export const hasZeroCopy = (pe) => typeof pe.allocFloat32 === 'function';

/** The kernel path the module is on: pe.kernelPath(), or 'simd128' for a build without it. */
export const currentKernelPath = (pe) => (typeof pe.kernelPath === 'function' ? pe.kernelPath() : 'simd128');

/**
 * The kernel paths this module can run, the fastest first: ['relaxed-simd', 'simd128'] or ['simd128'],
 * and why relaxed SIMD is not among them. Leaves the module on the path it was on.
 * @returns {{paths: string[], relaxed: string}}  relaxed: 'available' or the reason it is not
 */
export function kernelPaths(pe) {
  if (typeof pe.kernelPath !== 'function' || typeof pe.useKernels !== 'function') return { paths: ['simd128'], relaxed: 'not in this build' };
  const was = pe.kernelPath();
  try {
    pe.useKernels('relaxed-simd');
  } catch (e) {
    if (e?.param !== 'path') throw e;
    return { paths: ['simd128'], relaxed: `unavailable here: ${String(e.message).split('\n')[0]}` };
  } finally {
    if (pe.kernelPath() !== was) pe.useKernels(was);
  }
  return { paths: ['relaxed-simd', 'simd128'], relaxed: 'available' };
}

/**
 * Puts a module on a kernel path (a build without useKernels is on 'simd128' and accepts only that).
 * @throws {RangeError} .param 'path' when the module cannot run that path
 */
export function useKernelPath(pe, path) {
  if (typeof pe.useKernels === 'function') pe.useKernels(path);
  else if (path !== 'simd128') throw Object.assign(new RangeError(`this posenc build has no kernel path ${path}`), { param: 'path', value: path, allowed: ['simd128'] });
  return pe;
}

/**
 * The 'posenc (baseline)' engine: an earlier build of the module (run.mjs --baseline-build DIR), put on its
 * SIMD128 path, with attentionForward only (target (d) compares the SIMD128 path with it, in the same rounds).
 * @param {object} pe  that build's module (createPosenc's result)
 * @param {string} from  where the build came from, for the notes
 * @returns {object} the engine (posencEngine's, without the other methods), or one with no method when the build has no attentionForward
 */
export function baselineEngine(pe, from) {
  const engine = posencEngine(useKernelPath(pe, 'simd128'), { name: POSENC_BASELINE });
  for (const key of ['rope', 'sinusoid', 'ropeInvFreq', 'alibiBias']) delete engine[key];
  engine.notes = `an earlier build (${from}), attention only; kernels: ${engine.kernelPath}`;
  return engine;
}

/**
 * The engine over a loaded module `pe`, which keeps the kernel path it is on (a
 * second path is a second instance: no switch inside the timing).
 * @param {object} pe  the module (createPosenc's result)
 * @param {{zeroCopy?: boolean, name?: string}} options  name: the engine's column
 *   (default 'posenc', or 'posenc (zero-copy)')
 * @returns {object} {name, version, notes, kernelPath, module, rope, sinusoid, attentionForward?, ...}
 */
export function posencEngine(pe, { zeroCopy = false, name } = {}) {
  if (zeroCopy && !hasZeroCopy(pe)) throw new Error('this posenc build has no allocFloat32 (zero-copy handles)');
  const version = pe.version();
  const ropeSpec = (d, layout) => ({ type: 'rope', head_dim: d, layout });
  const kernelPath = currentKernelPath(pe);

  const engine = {
    name: name ?? (zeroCopy ? 'posenc (zero-copy)' : 'posenc'),
    version,
    notes: `${zeroCopy ? 'inputs and outputs in wasm-memory handles filled once' : 'computes its own RoPE angles'}; kernels: ${kernelPath}`,
    kernelPath,
    module: pe,
  };

  if (!zeroCopy) {
    engine.rope = ({ x, n, d, layout }) => pe.applyRope(x, n, d, ropeSpec(d, layout), 0);
    engine.sinusoid = ({ n, d }) => pe.positionTable({ type: 'sinusoidal', d_model: d }, n).data;
    if (typeof pe.attentionForward === 'function') {
      engine.attentionForward = ({ x, wq, wk, wv, n, dModel, dHead, causal }) =>
        pe.attentionForward({ x, wq, wk, wv, n, d_model: dModel, d_head: dHead, causal });
    }
    // Cheapest calls, for the per-call overhead rows.
    engine.ropeInvFreq = () => pe.ropeInvFreq(ropeSpec(16, 'half'), 16).inv_freq;
    engine.alibiBias = () => pe.attentionBias({ type: 'alibi', n_heads: 8 }, 4);
    engine.dispose = () => {};
    return engine;
  }

  // Zero-copy: one handle per input array (filled once) and one output handle per shape.
  const inputs = new Map();    // Float32Array -> handle
  const outputs = new Map();   // length -> handle
  const input = (array) => {
    let h = inputs.get(array);
    if (!h) {
      h = pe.allocFloat32(array.length);
      h.array.set(array);
      inputs.set(array, h);
    }
    return h;
  };
  const output = (length) => {
    let h = outputs.get(length);
    if (!h) { h = pe.allocFloat32(length); outputs.set(length, h); }
    return h;
  };
  /** What a call with an `out` handle returned, or the handle's current view (views detach when memory grows). */
  const result = (r, out) => {
    if (r instanceof Float32Array) return r;
    if (r?.data instanceof Float32Array) return r.data;
    if (r?.array instanceof Float32Array) return r.array;
    if (r?.data?.array instanceof Float32Array) return r.data.array;
    return out.array;
  };

  engine.rope = ({ x, n, d, layout }) => {
    const out = output(n * d);
    return result(pe.applyRope(input(x), n, d, ropeSpec(d, layout), 0, out), out);
  };
  engine.sinusoid = ({ n, d }) => {
    const out = output(n * d);
    return result(pe.positionTable({ type: 'sinusoidal', d_model: d }, n, out), out);
  };
  if (typeof pe.attentionForward === 'function') {
    engine.attentionForward = ({ x, wq, wk, wv, n, dModel, dHead, causal }) =>
      pe.attentionForward({ x: input(x), wq: input(wq), wk: input(wk), wv: input(wv), n, d_model: dModel, d_head: dHead, causal });
  }
  engine.dispose = () => {
    for (const h of [...inputs.values(), ...outputs.values()]) h.free();
    inputs.clear();
    outputs.clear();
  };
  return engine;
}
