// TensorFlow.js with its WebAssembly backend (XNNPACK kernels, the SIMD build,
// one thread), at its best:
// - the non-threaded SIMD binary from node_modules (WASM_HAS_MULTITHREAD_SUPPORT
//   off, so one thread and tfjs-backend-wasm-simd.wasm; no fetch from the network;
//   set up by tfjs.mjs in Node and by chromium-page.mjs in Chromium);
// - matMul(q, transpose(k)) rather than matMul(q, k, false, true): the wasm
//   backend's transposeB path is several times slower (see README of this bench);
// - 1/sqrt(d_head) folded into Q (n x d multiplies instead of n x n);
// - the causal mask is a cached [n, n] tensor of 0 / -Infinity added to the
//   scores (a constant buffer, as models keep it), built outside the timing;
// - RoPE: the cos/sin tables [n, d/2] it is handed are uploaded once per table
//   (a model's cached buffer), x is copied in on every call;
// - every call inside tf.tidy, which returns the result tensor (never a typed
//   array: tidy would walk it element by element), read with dataSync() and
//   disposed, so nothing leaks (leakedTensors() checks).
//
// This file touches no Node API: the Node bench (tfjs.mjs) and the Chromium bench share it.

/**
 * Puts tfjs-core on its wasm backend: the SIMD binary from `wasmDir`, one thread
 * (WASM_HAS_MULTITHREAD_SUPPORT off, so the non-threaded tfjs-backend-wasm-simd.wasm).
 * @param {{tf: object, backend: object}} libs  tfjs-core and @tensorflow/tfjs-backend-wasm's exports
 * @param {string} wasmDir  the folder (path or URL, ending in /) of the backend's .wasm files
 * @returns {Promise<{tf, backend}>} libs
 * @throws {Error} when the backend does not start or this engine has no wasm SIMD
 */
export async function startTfjsWasm({ tf, backend }, wasmDir) {
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);   // one thread
  backend.setWasmPaths(wasmDir);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not initialise');
  await tf.ready();
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  if (!simd) throw new Error('tfjs: no wasm SIMD here, so the SIMD binary would not load');
  return { tf, backend };
}

/**
 * The engine, from a tfjs-core already on its wasm backend (Node: tfjs.mjs's loadTfjs; Chromium: the
 * browser builds, tests/bench/chromium-page.mjs).
 * @param {{tf: object, backend: object}} libs  tfjs-core and @tensorflow/tfjs-backend-wasm's exports
 */
export function tfjsEngine({ tf, backend }) {
  const masks = new Map();        // n -> [n, n] tensor, 0 on and below the diagonal, -Infinity above
  const tables = new Map();       // cos Float32Array -> {cos, sin} tensors (shape [n, d/2])

  const causalMask = (n) => {
    if (!masks.has(n)) {
      const m = new Float32Array(n * n);
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) m[i * n + j] = -Infinity;
      masks.set(n, tf.keep(tf.tensor2d(m, [n, n])));
    }
    return masks.get(n);
  };

  const ropeTables = (cos, sin, n, half) => {
    let t = tables.get(cos);
    if (!t) {
      t = { cos: tf.keep(tf.tensor2d(cos, [n, half])), sin: tf.keep(tf.tensor2d(sin, [n, half])) };
      tables.set(cos, t);
    }
    return t;
  };

  const startTensors = tf.memory().numTensors;

  /**
   * The values of a tensor made in tf.tidy, which is then disposed. The tidy
   * returns the tensor, not its dataSync(): tidy walks whatever its function
   * returns looking for tensors, element by element for a typed array (150 ms
   * for 256k floats, more than the computation).
   */
  const read = (t) => {
    const values = t.dataSync();
    t.dispose();
    return values;
  };

  return {
    name: 'tfjs-wasm',
    version: `tfjs-core ${tf.version_core}, backend-wasm ${backend.version_wasm} (SIMD, ${backend.getThreadsCount()} thread)`,
    notes: 'RoPE is handed the cos/sin tables [n, d/2] (uploaded once); sinusoid from range, exp, mul, sin, cos, stack, transpose ops',

    matmul({ a, b, m, k, n }) {
      return read(tf.tidy(() => tf.matMul(tf.tensor2d(a, [m, k]), tf.tensor2d(b, [k, n]))));
    },

    attentionForward({ x, wq, wk, wv, n, dModel, dHead, causal }) {
      const mask = causal ? causalMask(n) : null;
      return read(tf.tidy(() => {
        const xt = tf.tensor2d(x, [n, dModel]);
        const q = tf.mul(tf.matMul(xt, tf.tensor2d(wq, [dModel, dHead])), tf.scalar(1 / Math.sqrt(dHead)));
        const k = tf.matMul(xt, tf.tensor2d(wk, [dModel, dHead]));
        const v = tf.matMul(xt, tf.tensor2d(wv, [dModel, dHead]));
        let scores = tf.matMul(q, tf.transpose(k));   // [n, n]
        if (mask) scores = tf.add(scores, mask);
        return tf.matMul(tf.softmax(scores), v);
      }));
    },

    rope({ x, n, d, cos, sin, layout }) {
      const half = d / 2;
      const t = ropeTables(cos, sin, n, half);
      return read(tf.tidy(() => {
        // Pair i is (i, i + d/2) (half) or (2i, 2i + 1) (interleaved): view x as [n, 2, d/2]
        // or [n, d/2, 2] and transpose it to [2, n, d/2], so both halves are contiguous
        // rows. Splitting and concatenating along the inner axis instead copies row by
        // row in JS in this backend: as fast when alone (~5 ms), but twice as slow, in
        // some runs, next to the other engines (the garbage of its 8192 subarrays).
        const xt = layout === 'half'
          ? tf.transpose(tf.tensor3d(x, [n, 2, half]), [1, 0, 2])
          : tf.transpose(tf.tensor3d(x, [n, half, 2]), [2, 0, 1]);
        const [a, b] = tf.split(xt, 2, 0).map((p) => tf.reshape(p, [n, half]));
        const ra = tf.sub(tf.mul(a, t.cos), tf.mul(b, t.sin));
        const rb = tf.add(tf.mul(a, t.sin), tf.mul(b, t.cos));
        const out = tf.stack([ra, rb], 0);                                          // [2, n, d/2]
        return layout === 'half' ? tf.transpose(out, [1, 0, 2]) : tf.transpose(out, [1, 2, 0]);
      }));
    },

    sinusoid({ n, d }) {
      return read(tf.tidy(() => {
        const positions = tf.reshape(tf.range(0, n, 1, 'float32'), [n, 1]);
        const invFreq = tf.exp(tf.mul(tf.range(0, d, 2, 'float32'), tf.scalar(-Math.log(10000) / d)));
        const angles = tf.mul(positions, tf.reshape(invFreq, [1, d / 2]));      // [n, d/2]
        // stack on axis 0 then transpose: stacking on the innermost axis is slow in this backend.
        return tf.transpose(tf.stack([tf.sin(angles), tf.cos(angles)], 0), [1, 2, 0]);   // [n, d/2, 2]
      }));
    },

    /** Tensors alive beyond the cached masks and tables (0 when nothing leaks). */
    leakedTensors() {
      return tf.memory().numTensors - startTensors - masks.size - 2 * tables.size;
    },

    dispose() {
      for (const m of masks.values()) m.dispose();
      for (const t of tables.values()) { t.cos.dispose(); t.sin.dispose(); }
      masks.clear();
      tables.clear();
    },
  };
}
