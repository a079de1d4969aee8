// The SIMD instructions in each hot kernel of the wasm module: builds a second
// module with its function names kept (build/wasm-names, -DPOSENC_FUNCTION_NAMES=ON;
// the same code, flags and optimisation as web/generated), disassembles it with
// binaryen's wasm-dis and counts, per function, the v128 operations
// (f32x4.*, f64x2.*, i32x4.*, v128.*). Functions the kernels were inlined into
// count them. Run alone: node tests/bench/simd-counts.mjs; run.mjs prints it too.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The kernels, by a part of their (demangled, escaped) wasm name. */
const KERNELS = [
  ['matmul, matmul_bt (multiply_panels: 4 x 8 tiles)', 'multiply_panels'],
  ['fused attention (tiles, exp, online softmax, P.V)', 'posenc::kernels::attention\\28'],
  ["the page's head, attention::run (softmax_rows)", 'posenc::attention::run\\28'],
  ['rotate: RoPE / xPos, both layouts (Phasors::row)', 'posenc::kernels::rotate\\28'],
  ['sinusoid table (sinusoid_table, Phasors::row)', 'sinusoidal_family'],
  ['Phasors: float64 anchors', 'posenc::kernels::Phasors::Phasors'],
  ['RelativeBias::add (ALiBi, T5, KERPLE tiles)', 'RelativeBias::add'],
];

/** {kernel: {simd, f32x4_mul, total}} for the built module, plus the module's whole count. */
export function simdCounts() {
  const build = path.join(root, 'build/wasm-names');
  execFileSync('cmake', ['--preset', 'wasm', '-B', build, '-DPOSENC_FUNCTION_NAMES=ON'], { cwd: root, stdio: 'ignore' });
  execFileSync('cmake', ['--build', build], { cwd: root, stdio: 'ignore' });
  const wat = execFileSync('wasm-dis', [path.join(build, 'posenc.wasm')], { encoding: 'utf8', maxBuffer: 256 << 20 });
  const functions = new Map();  // name -> lines
  let current = null;
  for (const line of wat.split('\n')) {
    if (line.startsWith(' (func ')) {
      current = line.slice(7).split(' ')[0];
      functions.set(current, { simd: 0, mul: 0, total: 0 });
    } else if (current && line.startsWith('  ')) {
      const f = functions.get(current);
      f.total++;
      if (/\((f32x4|f64x2|i32x4|i16x8|i8x16|v128|i64x2)\./.test(line)) f.simd++;
      if (line.includes('(f32x4.mul')) f.mul++;
    }
  }
  const out = {};
  for (const [label, key] of KERNELS) {
    const hits = [...functions.entries()].filter(([name]) => name.includes(key));
    out[label] = hits.reduce((a, [, f]) => ({ simd: a.simd + f.simd, f32x4_mul: a.f32x4_mul + f.mul, functions: a.functions + 1 }),
      { simd: 0, f32x4_mul: 0, functions: 0 });
  }
  const all = [...functions.values()];
  out['whole module'] = { simd: all.reduce((a, f) => a + f.simd, 0), f32x4_mul: all.reduce((a, f) => a + f.mul, 0), functions: all.length };
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [label, c] of Object.entries(simdCounts()))
    console.log(`${label.padEnd(44)} ${String(c.simd).padStart(5)} v128 ops, ${String(c.f32x4_mul).padStart(4)} f32x4.mul  (${c.functions} function${c.functions === 1 ? '' : 's'})`);
}
