// posenc's own WebAssembly module (web/generated/posenc.{mjs,wasm}, built by
// `npm run build:wasm`), loaded as tests/wasm/load.mjs does, through its public
// JS API (DESIGN.md): every call copies its inputs in and returns a fresh array.
// RoPE computes its own angles (no cos/sin tables are handed to it).
//
// create({zeroCopy: true}) is the "posenc (zero-copy)" engine: only when the
// module has pe.allocFloat32(length) -> {ptr, length, array, free()}, it fills
// wasm-memory handles once per input array and reuses them (and an `out`
// handle for applyRope / positionTable), so a call moves no bytes across the
// JS/wasm boundary. Its methods return a view of wasm memory (the harness
// copies it before checking); it exists to show what the copies cost.
import fs from 'node:fs';

const generated = new URL('../../../web/generated/', import.meta.url);

/** Loads the module, or says why it cannot. */
export async function loadModule() {
  const wasm = new URL('posenc.wasm', generated);
  if (!fs.existsSync(wasm)) throw new Error('web/generated/posenc.wasm is missing: run `npm run build:wasm`');
  const { default: createPosenc } = await import(new URL('posenc.mjs', generated));
  return createPosenc({ wasmBinary: fs.readFileSync(wasm) });
}

/** Whether the module has the zero-copy handle API. */
export const hasZeroCopy = (pe) => typeof pe.allocFloat32 === 'function';

export async function create({ zeroCopy = false, module } = {}) {
  const pe = module ?? await loadModule();
  if (zeroCopy && !hasZeroCopy(pe)) throw new Error('this posenc build has no allocFloat32 (zero-copy handles)');
  const version = pe.version();
  const ropeSpec = (d, layout) => ({ type: 'rope', head_dim: d, layout });

  const engine = {
    name: zeroCopy ? 'posenc (zero-copy)' : 'posenc',
    version,
    notes: zeroCopy ? 'inputs and outputs in wasm-memory handles filled once' : 'computes its own RoPE angles',
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
