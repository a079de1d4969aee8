// The wasm SIMD peak: builds tests/bench/peak.c with Debian's emcc into
// build/bench/peak.wasm (when missing or older than the source) and measures
// the f32x4 mul + add throughput of one core in this Node, in GFLOP/s.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const source = path.join(here, 'peak.c');
const output = path.join(root, 'build/bench/peak.wasm');
export const ACCUMULATORS = [4, 6, 8, 10];

function build() {
  if (fs.existsSync(output) && fs.statSync(output).mtimeMs >= fs.statSync(source).mtimeMs) return;
  fs.mkdirSync(path.dirname(output), { recursive: true });
  execFileSync('emcc', ['-O3', '-msimd128', '--no-entry', '-sSTANDALONE_WASM', source, '-o', output], {
    env: { ...process.env, NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/**
 * @param {{seconds?: number}} options  time to spend per accumulator count
 * @returns {Promise<{gflops: number, accumulators: number, byAccumulators: object}>}
 */
export async function measurePeak({ seconds = 0.6 } = {}) {
  build();
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(output), {});
  instance.exports._initialize?.();
  const byAccumulators = {};
  let best = { gflops: 0, accumulators: 0 };
  for (const n of ACCUMULATORS) {
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const p = await measurePeak();
  console.log(`wasm SIMD peak: ${p.gflops.toFixed(2)} GFLOP/s (${p.accumulators} accumulators);`,
    Object.entries(p.byAccumulators).map(([n, g]) => `${n}: ${g.toFixed(2)}`).join(', '));
}
