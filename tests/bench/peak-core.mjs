// The peak probes' measurement, shared by Node (peak.mjs) and the Chromium bench
// (chromium-page.mjs): nothing here touches the file system. A probe module
// exports peakN(iterations, m, c) for several accumulator counts N, each doing
// 32 * N * iterations flops (peak.c, peak-relaxed.wat); the peak is the best
// count's median GFLOP/s on one core.

/** The two probes: the wasm SIMD peak (f32x4.mul + f32x4.add) and the relaxed-SIMD FMA peak (f32x4.relaxed_madd). */
export const PROBES = {
  simd: { file: 'peak.wasm', accumulators: [4, 6, 8, 10], label: 'f32x4.mul + f32x4.add' },
  relaxed: { file: 'peak-relaxed.wasm', accumulators: [4, 6, 8, 10, 12], label: 'f32x4.relaxed_madd' },
};

/**
 * The smallest module that uses relaxed SIMD: one function returning
 * f32x4.relaxed_madd(v128.const 0, v128.const 0, v128.const 0) (opcode 0xfd 0x85 0x02,
 * the final encoding). WebAssembly.validate(RELAXED_PROBE) says whether this engine
 * runs relaxed SIMD (Node 20 only with --experimental-wasm-relaxed-simd; Chromium >= 114).
 */
const zeros = new Array(16).fill(0);
const v128Zero = [0xfd, 0x0c, ...zeros];
const body = [0x00, ...v128Zero, ...v128Zero, ...v128Zero, 0xfd, 0x85, 0x02, 0x0b];
export const RELAXED_PROBE = Uint8Array.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,          // type: () -> v128
  0x03, 0x02, 0x01, 0x00,                            // one function of type 0
  0x0a, body.length + 2, 0x01, body.length, ...body, // its code
]);

/** Whether this JS engine validates a relaxed-SIMD module. */
export const hasRelaxedSimd = () => WebAssembly.validate(RELAXED_PROBE);

/**
 * Measures a probe module.
 * @param {BufferSource} bytes  the probe's .wasm
 * @param {number[]} accumulators  the counts N it exports peakN for
 * @param {{seconds?: number}} options  time to spend per count
 * @returns {Promise<{gflops: number, accumulators: number, byAccumulators: Record<number, number>}>}
 */
export async function measurePeakBytes(bytes, accumulators, { seconds = 0.6 } = {}) {
  const { instance } = await WebAssembly.instantiate(bytes, {});
  instance.exports._initialize?.();
  const byAccumulators = {};
  let best = { gflops: 0, accumulators: 0 };
  for (const n of accumulators) {
    const peak = instance.exports[`peak${n}`];
    // Warm up (V8 first runs wasm in its baseline tier), then size a call to ~20 ms.
    let iterations = 1000;
    for (let t0 = performance.now(); performance.now() - t0 < 100;) peak(iterations, 0.999999, 1e-6);
    for (;;) {
      const t0 = performance.now();
      peak(iterations, 0.999999, 1e-6);
      if (performance.now() - t0 > 20) break;
      iterations *= 2;
    }
    const rates = [];
    for (let t0 = performance.now(); performance.now() - t0 < seconds * 1000 || rates.length < 5;) {
      const t = performance.now();
      peak(iterations, 0.999999, 1e-6);
      rates.push((32 * n * iterations) / ((performance.now() - t) * 1e6));
    }
    rates.sort((a, b) => a - b);
    const median = rates[rates.length >> 1];
    byAccumulators[n] = median;
    if (median > best.gflops) best = { gflops: median, accumulators: n };
  }
  return { ...best, byAccumulators };
}
