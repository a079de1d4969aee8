// The wasm peaks of one core in this Node, in GFLOP/s (the measurement itself is
// peak-core.mjs, shared with the Chromium bench):
// - the SIMD peak: tests/bench/peak.c (f32x4.mul + f32x4.add), built with Debian's
//   emcc into build/bench/peak.wasm;
// - the FMA peak: tests/bench/peak-relaxed.wat (f32x4.relaxed_madd), assembled with
//   Debian's `wat2wasm --enable-relaxed-simd` into build/bench/peak-relaxed.wasm;
// each (re)built when missing or older than its source.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PROBES, hasRelaxedSimd, measurePeakBytes } from './peak-core.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
export const BUILD_DIR = path.join(root, 'build/bench');
export const ACCUMULATORS = PROBES.simd.accumulators;

const stale = (output, source) => !fs.existsSync(output) || fs.statSync(output).mtimeMs < fs.statSync(source).mtimeMs;

/** build/bench/peak.wasm from peak.c (emcc), when missing or stale; returns its path. */
export function buildSimdPeak() {
  const source = path.join(here, 'peak.c');
  const output = path.join(BUILD_DIR, PROBES.simd.file);
  if (!stale(output, source)) return output;
  fs.mkdirSync(BUILD_DIR, { recursive: true });
  execFileSync('emcc', ['-O3', '-msimd128', '--no-entry', '-sSTANDALONE_WASM', source, '-o', output], {
    env: { ...process.env, NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return output;
}

/**
 * build/bench/peak-relaxed.wasm from peak-relaxed.wat (wat2wasm --enable-relaxed-simd), when missing or
 * stale; returns its path. Throws when wat2wasm is not installed (apt-get install wabt).
 */
export function buildRelaxedPeak() {
  const source = path.join(here, 'peak-relaxed.wat');
  const output = path.join(BUILD_DIR, PROBES.relaxed.file);
  if (!stale(output, source)) return output;
  fs.mkdirSync(BUILD_DIR, { recursive: true });
  try {
    execFileSync('wat2wasm', ['--enable-relaxed-simd', source, '-o', output], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    throw new Error(e.code === 'ENOENT' ? 'wat2wasm is not installed (Debian: apt-get install wabt)' : `wat2wasm failed: ${String(e.stderr ?? e.message).trim()}`);
  }
  return output;
}

/**
 * The wasm SIMD peak (f32x4.mul + f32x4.add) of one core in this Node.
 * @param {{seconds?: number}} options  time to spend per accumulator count
 * @returns {Promise<{gflops: number, accumulators: number, byAccumulators: object}>}
 */
export async function measurePeak({ seconds = 0.6 } = {}) {
  return measurePeakBytes(fs.readFileSync(buildSimdPeak()), PROBES.simd.accumulators, { seconds });
}

/**
 * The relaxed-SIMD FMA peak (f32x4.relaxed_madd) of one core in this Node, or {error} when this Node
 * does not run relaxed SIMD (Node 20 needs --experimental-wasm-relaxed-simd) or wat2wasm is missing.
 * @param {{seconds?: number}} options  time to spend per accumulator count
 * @returns {Promise<{gflops: number, accumulators: number, byAccumulators: object} | {error: string}>}
 */
export async function measureRelaxedPeak({ seconds = 0.6 } = {}) {
  if (!hasRelaxedSimd()) return { error: 'this Node does not run relaxed SIMD (Node 20: --experimental-wasm-relaxed-simd)' };
  let file;
  try { file = buildRelaxedPeak(); } catch (e) { return { error: e.message }; }
  return measurePeakBytes(fs.readFileSync(file), PROBES.relaxed.accumulators, { seconds });
}

/** One line per peak: "label: G GFLOP/s (N accumulators) [n acc: g, ...]". */
export function formatPeak(label, p) {
  if (!p) return `${label}: not measured`;
  if (p.error) return `${label}: not measured: ${p.error}`;
  return `${label}: ${p.gflops.toFixed(2)} GFLOP/s (${p.accumulators} accumulators)`
    + `  [${Object.entries(p.byAccumulators).map(([n, g]) => `${n} acc: ${g.toFixed(1)}`).join(', ')}]`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(formatPeak(`wasm SIMD peak (${PROBES.simd.label})`, await measurePeak()));
  console.log(formatPeak(`FMA peak (${PROBES.relaxed.label})`, await measureRelaxedPeak()));
}
