// ONNX Runtime Web with its WebAssembly backend (the CPU execution provider
// with MLAS kernels, SIMD build, one thread), at its best:
// - ort.env.wasm.numThreads = 1, the SIMD binary read from node_modules and
//   handed over as bytes (env.wasm.wasmBinary), so nothing is fetched;
// - each graph is built (tests/bench/onnx.mjs, in memory) and its session
//   created once per shape, outside the timing, with every graph optimisation;
// - attention: three MatMuls then the fused opset-23 `Attention` op
//   (q_num_heads = kv_num_heads = 1, is_causal) in one graph; the same graph
//   with Attention spelled out (MatMul, Softmax, a mask initializer) is also
//   built, and for each shape the faster of the two is kept (measured once,
//   outside the timing): the fused op is slower at n = 128 (its fixed cost),
//   faster when causal at large n;
// - RoPE: the opset-23 `RotaryEmbedding` op (`interleaved` attribute), the
//   cos/sin tables it is handed baked into the graph as initializers [1, n, d/2]
//   (a model's cached buffer; one session per table), x fed on every call;
// - matmul: one MatMul;
// - sinusoid: Range -> Unsqueeze -> Mul(inv_freq) -> Sin, Cos -> Unsqueeze ->
//   Concat -> Reshape, with the number of positions a graph input (a graph of
//   constants alone would be folded into a constant when the session is created).
//
// This file touches no Node API: the Node bench (ort.mjs) and the Chromium bench share it.
import { model, node, tensorInfo, floatTensor, int64Tensor } from '../onnx.mjs';

/**
 * One head as an ONNX graph: three MatMuls (x [1, n, d_model] by each W), then
 * either the fused opset-23 Attention op (q_num_heads = kv_num_heads = 1,
 * is_causal; 3-D inputs) or its composition: Q scaled, K transposed, MatMul,
 * the causal mask added (a [n, n] initializer of 0 / -Infinity), Softmax, MatMul.
 */
function attentionGraph(n, dModel, dHead, causal, form) {
  const projections = ['q', 'k', 'v'].map((p) => node('MatMul', ['x', `w${p}`], [p]));
  const inputs = [tensorInfo('x', [1, n, dModel]), ...['wq', 'wk', 'wv'].map((w) => tensorInfo(w, [dModel, dHead]))];
  const outputs = [tensorInfo('y', [1, n, dHead])];
  if (form === 'fused') {
    return model({ inputs, outputs, nodes: [...projections, node('Attention', ['q', 'k', 'v'], ['y'], { q_num_heads: 1, kv_num_heads: 1, is_causal: causal ? 1 : 0 })] });
  }
  const initializers = [floatTensor('scale', [], [1 / Math.sqrt(dHead)])];
  if (causal) {
    const mask = new Float32Array(n * n);
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) mask[i * n + j] = -Infinity;
    initializers.push(floatTensor('mask', [n, n], mask));
  }
  return model({
    inputs, outputs, initializers,
    nodes: [
      ...projections,
      node('Mul', ['q', 'scale'], ['qs']),
      node('Transpose', ['k'], ['kt'], { perm: [0, 2, 1] }),
      node('MatMul', ['qs', 'kt'], ['scores']),
      ...(causal ? [node('Add', ['scores', 'mask'], ['masked'])] : []),
      node('Softmax', [causal ? 'masked' : 'scores'], ['p'], { axis: -1 }),
      node('MatMul', ['p', 'v'], ['y']),
    ],
  });
}

/**
 * The engine, from onnxruntime-web's exports (Node: ort.mjs; Chromium: its browser build,
 * tests/bench/chromium-page.mjs) and the bytes of its SIMD binary (ort-wasm-simd-threaded.wasm).
 * Sets ort.env for one thread before the first session is created.
 * @param {object} ort  onnxruntime-web's exports
 * @param {Uint8Array | ArrayBuffer} wasmBinary  ort-wasm-simd-threaded.wasm
 */
export function ortEngine(ort, wasmBinary) {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;   // ignored by 1.30 (SIMD is the only build), kept for older releases
  ort.env.wasm.wasmBinary = wasmBinary;
  ort.env.logLevel = 'error';

  const sessions = new Map();   // key -> Promise<InferenceSession>
  const tableIds = new WeakMap();
  let nextTableId = 0;
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all', intraOpNumThreads: 1, interOpNumThreads: 1 };
  const session = (key, build) => {
    if (!sessions.has(key)) sessions.set(key, ort.InferenceSession.create(build(), options));
    return sessions.get(key);
  };
  /**
   * For a shape with more than one way to build the graph: creates every
   * variant's session, times them (a few alternating runs on the caller's
   * inputs, outside the bench's timing) and keeps the fastest; `choices`
   * records which one each shape uses.
   */
  const choices = {};
  const fastest = (key, builders, feeds) => {
    if (!sessions.has(key)) {
      sessions.set(key, (async () => {
        const variants = [];
        const failed = [];
        for (const [name, build] of Object.entries(builders)) {
          try {
            variants.push({ name, s: await ort.InferenceSession.create(build(), options), times: [] });
          } catch (e) {
            failed.push(`${name} failed: ${String(e.message).split('\n')[0]}`);
          }
        }
        if (variants.length === 0) throw new Error(failed.join('; '));
        for (const v of variants) {                                                 // warm-up: 10 runs or 0.3 s
          for (let i = 0, t0 = performance.now(); i < 10 || performance.now() - t0 < 300; i++) {
            await v.s.run(feeds);
            if (i >= 1 && performance.now() - t0 > 1500) break;
          }
        }
        for (let round = 0; round < 9; round++) {
          for (const v of variants) {
            const t0 = performance.now();
            await v.s.run(feeds);
            v.times.push(performance.now() - t0);
          }
        }
        const med = (t) => [...t].sort((a, b) => a - b)[t.length >> 1];
        variants.sort((a, b) => med(a.times) - med(b.times));
        choices[key] = `${variants[0].name} (${[...variants.map((v) => `${v.name} ${med(v.times).toFixed(2)} ms`), ...failed].join(', ')})`;
        for (const v of variants.slice(1)) await v.s.release();
        return variants[0].s;
      })());
    }
    return sessions.get(key);
  };
  const tableId = (t) => {
    if (!tableIds.has(t)) tableIds.set(t, nextTableId++);
    return tableIds.get(t);
  };
  const f32 = (data, dims) => new ort.Tensor('float32', data, dims);

  return {
    name: 'ORT-web',
    version: `onnxruntime-web ${ort.env.versions.web} (wasm EP, SIMD, ${ort.env.wasm.numThreads} thread)`,
    notes: 'attention: fused opset-23 Attention or MatMul/Softmax, the faster per shape; RotaryEmbedding op handed the cos/sin tables [n, d/2] (graph initializers)',
    choices,

    async matmul({ a, b, m, k, n }) {
      const s = await session(`matmul ${m} ${k} ${n}`, () => model({
        inputs: [tensorInfo('a', [m, k]), tensorInfo('b', [k, n])],
        outputs: [tensorInfo('c', [m, n])],
        nodes: [node('MatMul', ['a', 'b'], ['c'])],
      }));
      const r = await s.run({ a: f32(a, [m, k]), b: f32(b, [k, n]) });
      return r.c.data;
    },

    async attentionForward({ x, wq, wk, wv, n, dModel, dHead, causal }) {
      const w = (data) => f32(data, [dModel, dHead]);
      const feeds = { x: f32(x, [1, n, dModel]), wq: w(wq), wk: w(wk), wv: w(wv) };
      const s = await fastest(`attention ${n} ${dModel} ${dHead} ${causal}`, {
        'fused Attention': () => attentionGraph(n, dModel, dHead, causal, 'fused'),
        'MatMul/Softmax': () => attentionGraph(n, dModel, dHead, causal, 'composed'),
      }, feeds);
      const r = await s.run(feeds);
      return r.y.data;
    },

    async rope({ x, n, d, cos, sin, layout }) {
      const s = await session(`rope ${n} ${d} ${layout} ${tableId(cos)} ${tableId(sin)}`, () => model({
        inputs: [tensorInfo('x', [1, n, d])],
        outputs: [tensorInfo('y', [1, n, d])],
        initializers: [floatTensor('cos', [1, n, d / 2], cos), floatTensor('sin', [1, n, d / 2], sin)],
        nodes: [node('RotaryEmbedding', ['x', 'cos', 'sin'], ['y'], { interleaved: layout === 'interleaved' ? 1 : 0, num_heads: 1 })],
      }));
      const r = await s.run({ x: f32(x, [1, n, d]) });
      return r.y.data;
    },

    async sinusoid({ n, d }) {
      const half = d / 2;
      const s = await session(`sinusoid ${d}`, () => model({
        inputs: [tensorInfo('n', [])],
        outputs: [tensorInfo('table', ['n', d])],
        initializers: [
          floatTensor('zero', [], [0]), floatTensor('one', [], [1]), floatTensor('two', [], [2]),
          floatTensor('d', [], [d]), floatTensor('log_base_over_d', [], [-Math.log(10000) / d]),
          int64Tensor('axis1', [1], [1]), int64Tensor('axis0', [1], [0]), int64Tensor('axis2', [1], [2]),
          int64Tensor('shape', [2], [-1, d]),
        ],
        nodes: [
          node('Range', ['zero', 'n', 'one'], ['positions']),               // [n]
          node('Unsqueeze', ['positions', 'axis1'], ['p']),                 // [n, 1]
          node('Range', ['zero', 'd', 'two'], ['two_i']),                   // [d/2]: 0, 2, 4, ...
          node('Mul', ['two_i', 'log_base_over_d'], ['log_w']),
          node('Exp', ['log_w'], ['w']),                                    // base^(-2i/d)
          node('Unsqueeze', ['w', 'axis0'], ['w_row']),                     // [1, d/2]
          node('Mul', ['p', 'w_row'], ['angles']),                          // [n, d/2]
          node('Sin', ['angles'], ['s']), node('Cos', ['angles'], ['c']),
          node('Unsqueeze', ['s', 'axis2'], ['s3']), node('Unsqueeze', ['c', 'axis2'], ['c3']),
          node('Concat', ['s3', 'c3'], ['sc'], { axis: 2 }),                 // [n, d/2, 2]
          node('Reshape', ['sc', 'shape'], ['table']),                      // [n, d]: sin, cos interleaved
        ],
      }));
      const r = await s.run({ n: f32(Float32Array.of(n), []) });
      if (r.table.dims[0] !== n || half * 2 !== r.table.dims[1]) throw new Error(`ORT sinusoid: shape ${r.table.dims}`);
      return r.table.data;
    },

    async dispose() {
      for (const s of sessions.values()) await (await s).release();
      sessions.clear();
    },
  };
}
