// The 2^x of wasm/relaxed-kernels.wat's softmaxRows (attention's online-softmax step on the relaxed path, whose
// scores are in base 2) against 2 ** x in float64, over the softmax's inputs, through the kernel itself: each row is
// [0, x_1 .. x_63] with every x <= 0, so its max is 0 and its weights are 2^x; its running max is one more x, so
// alpha = 2^x too.
// kernels.test.mjs runs it (in a child Node with --experimental-wasm-relaxed-simd when this one has no relaxed
// SIMD); alone: node --experimental-wasm-relaxed-simd tests/wasm/softmax-exp.mjs [module.wasm] prints the JSON.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The relaxed kernels the build assembled (CMakeLists.txt: build/wasm/relaxed-kernels.wasm). */
export const RELAXED_KERNELS_WASM = fileURLToPath(new URL('../../build/wasm/relaxed-kernels.wasm', import.meta.url));

const LOWEST = -126;  // the last input kept (2^-126, the least normal float); below it the weight is flushed to +0

/**
 * Sweeps softmaxRows's 2^x: every 61st float32 in [-126, 0], every float32 in five narrow ranges (near 0, near
 * -1e-3, near -1/2 where round(x) changes, just above the flush point), and the special rows. Returns the worst relative errors
 * and everything that broke a rule (`problems`, empty when the kernel keeps its contract).
 * @param {Uint8Array} bytes  the relaxed kernels module
 */
export function sweepSoftmaxExp(bytes) {
  const memory = new WebAssembly.Memory({ initial: 2 });
  const { softmaxRows } = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports;
  const ROWS = 64, COLS = 64;
  const S = 0, MAX = ROWS * COLS * 4, ALPHA = MAX + ROWS * 4, SUMS = ALPHA + ROWS * 4, SCRATCH = SUMS + ROWS * 4;
  const f32 = new Float32Array(memory.buffer), u32 = new Uint32Array(memory.buffer);
  const value = (bits) => { u32[SCRATCH >> 2] = bits; return f32[SCRATCH >> 2]; };
  const bitsOf = (x) => { f32[SCRATCH >> 2] = x; return u32[SCRATCH >> 2]; };
  const problems = [];
  let worst = 0, worstAt = 0, worstAlpha = 0, checked = 0;
  const relative = (got, x) => {
    if (x < LOWEST) return got === 0 ? 0 : Infinity;
    const exact = 2 ** x;
    return Math.abs(got - exact) / exact;
  };

  /** One call on rows [0, x...] whose running maxima are xs too; checks every weight, alpha, sum and new max. */
  const run = (xs) => {
    let i = 0;
    const before = [];
    for (let r = 0; r < ROWS; r++) {
      const row = f32.subarray((S >> 2) + r * COLS, (S >> 2) + (r + 1) * COLS);
      row[0] = 0;
      for (let c = 1; c < COLS; c++) row[c] = i < xs.length ? xs[i++] : -1;
      before.push(f32[(MAX >> 2) + r] = xs[(r * 7) % xs.length]);
    }
    softmaxRows(S, COLS, ROWS, COLS, MAX, ALPHA, SUMS);
    i = 0;
    for (let r = 0; r < ROWS; r++) {
      const row = f32.subarray((S >> 2) + r * COLS, (S >> 2) + (r + 1) * COLS);
      let sum = 0;
      for (let c = 0; c < COLS; c++) sum += row[c];
      for (let c = 1; c < COLS && i < xs.length; c++, checked++) {
        const x = xs[i++], error = relative(row[c], x);
        if (error > worst) { worst = error; worstAt = x; }
      }
      worstAlpha = Math.max(worstAlpha, relative(f32[(ALPHA >> 2) + r], before[r]));
      if (row[0] !== 1) problems.push(`2^0 = ${row[0]}, not 1`);
      if (f32[(MAX >> 2) + r] !== 0) problems.push(`running max ${f32[(MAX >> 2) + r]} after a row of max 0`);
      if (Math.abs(f32[(SUMS >> 2) + r] - sum) > 1e-6 * sum) problems.push(`sum ${f32[(SUMS >> 2) + r]}, weights sum to ${sum}`);
    }
  };
  const sweep = (from, to, step) => {
    let batch = [];
    for (let b = from; b <= to; b += step) {
      batch.push(value(b));
      if (batch.length === ROWS * (COLS - 1)) { run(batch); batch = []; }
    }
    if (batch.length) run(batch);
  };
  const lowest = bitsOf(LOWEST);
  sweep(bitsOf(-0), lowest, 61);                       // x in [-126, 0], every 61st float (18 million)
  sweep(bitsOf(-0), bitsOf(-0) + 100000, 1);           // every float in [-1.4e-40, 0]
  sweep(bitsOf(-1e-3), bitsOf(-1e-3) + 100000, 1);     // every float just below -1e-3
  sweep(bitsOf(-0.5) - 50000, bitsOf(-0.5) + 50000, 1); // about -1/2: the reduction's k changes
  sweep(lowest - 100000, lowest, 1);                   // every float just above the flush point
  run([-126.00001, -Infinity, -127, -1e30, -130, -1000]); // flushed to +0 (and alpha from these running maxima)

  // The max kept (a row below its running max): alpha exactly 1, weights 2^(s - old max). A row of -infinity whose
  // running max is -infinity: weights, alpha and sum 0, the running max still -infinity.
  f32.fill(-2, S >> 2, (S >> 2) + 2 * COLS);
  f32.fill(-Infinity, (S >> 2) + COLS, (S >> 2) + 2 * COLS);
  f32[MAX >> 2] = -1;
  f32[(MAX >> 2) + 1] = -Infinity;
  softmaxRows(S, COLS, 2, COLS, MAX, ALPHA, SUMS);
  if (f32[ALPHA >> 2] !== 1 || f32[MAX >> 2] !== -1) problems.push(`a kept max: alpha ${f32[ALPHA >> 2]}, max ${f32[MAX >> 2]}`);
  if (relative(f32[S >> 2], -1) > 2e-7) problems.push(`a kept max: weight ${f32[S >> 2]} for 2^-1`);
  const dead = f32.subarray((S >> 2) + COLS, (S >> 2) + 2 * COLS);
  if (dead.some((w) => w !== 0) || f32[(ALPHA >> 2) + 1] !== 0 || f32[(SUMS >> 2) + 1] !== 0 || f32[(MAX >> 2) + 1] !== -Infinity)
    problems.push('a row of -infinity: not all 0');
  return { worst, worstAt, worstAlpha, checked, problems };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(sweepSoftmaxExp(fs.readFileSync(process.argv[2] ?? RELAXED_KERNELS_WASM))));
}
