// The fixed cost of a call into the wasm module: the median microseconds per
// call, after warm-up, of small calls whose work is negligible, so what is
// measured is the JS <-> wasm crossing (argument conversion, spec parsing,
// result copying).
//   node scripts/overhead.mjs                 the module in web/generated/
//   node scripts/overhead.mjs --dir DIR       DIR/posenc.mjs + DIR/posenc.wasm (e.g. another build)
//   node scripts/overhead.mjs --json          the numbers as JSON
//   node scripts/overhead.mjs --split         also the time inside wasm (the raw
//     export of wasm/bindings.cpp, called directly with a parsed spec: the core's
//     work, reading the spec included, and the reply), and so the JS layer's part
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const dirAt = args.indexOf('--dir');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = dirAt >= 0 ? path.resolve(args[dirAt + 1]) : path.join(root, 'web', 'generated');
const { default: createPosenc } = await import(pathToFileURL(path.join(dir, 'posenc.mjs')).href);
// As tests/wasm/load.mjs does: the glue is built for the web, so Node hands it the bytes.
const pe = await createPosenc({ wasmBinary: fs.readFileSync(path.join(dir, 'posenc.wasm')) });

const llama3 = {
  type: 'rope', head_dim: 128, rope_theta: 500000,
  rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 },
};
const plainRope = { type: 'rope', head_dim: 128 };
const alibi = { type: 'alibi', n_heads: 8 };
const sinusoidal = { type: 'sinusoidal', d_model: 16 };
const ropeSmall = { type: 'rope', head_dim: 16 };
const x = Float32Array.from({ length: 4 * 16 }, (_, k) => Math.sin(k));

// --split: the raw exports (wasm/bindings.cpp's convention), with spec ids parsed here.
const raw = typeof pe._posenc_spec_parse === 'function' && args.includes('--split');
function specId(spec) {
  const bytes = new TextEncoder().encode(JSON.stringify(spec));
  const address = pe._malloc(bytes.length);
  pe.HEAPU8.set(bytes, address);
  const id = pe._posenc_spec_parse(address, bytes.length, 0);
  pe._free(address);
  return id;
}
const rawCall = (call) => () => {
  call();
  pe._posenc_release();
};

// [name, the call, the same work as a raw export (or undefined)]
const cases = [
  ['version()', () => pe.version(), raw && rawCall(() => pe._posenc_version())],
  ['alibiSlopes(8)', () => pe.alibiSlopes(8), raw && rawCall(() => pe._posenc_alibi_slopes(0, 8))],
  ['ropeInvFreq(llama3 spec, 16)', () => pe.ropeInvFreq(llama3, 16),
    raw && ((id) => rawCall(() => pe._posenc_rope_inv_freq(0, id, 16)))(specId(llama3))],
  ['ropeInvFreq(plain rope spec, 16)', () => pe.ropeInvFreq(plainRope, 16),
    raw && ((id) => rawCall(() => pe._posenc_rope_inv_freq(0, id, 16)))(specId(plainRope))],
  ['attentionBias(alibi, 4)', () => pe.attentionBias(alibi, 4),
    raw && ((id) => rawCall(() => pe._posenc_attention_bias(0, id, 4)))(specId(alibi))],
  ['positionTable(sinusoidal d_model 16, 4)', () => pe.positionTable(sinusoidal, 4),
    raw && ((id) => rawCall(() => pe._posenc_position_table(0, id, 4, 0, 0)))(specId(sinusoidal))],
];
if (typeof pe.allocFloat32 === 'function') {
  const input = pe.allocFloat32(x.length);
  input.array.set(x);
  const output = pe.allocFloat32(x.length);
  const id = raw && specId(ropeSmall);
  cases.push(['applyRope([4, 16] Float32Array)', () => pe.applyRope(x, 4, 16, ropeSmall, 0)]);
  cases.push(['applyRope([4, 16] handles, out)', () => pe.applyRope(input, 4, 16, ropeSmall, 0, output),
    raw && rawCall(() => pe._posenc_apply_rope(0, input.ptr, 64, 4, 16, id, 0, output.ptr, 64))]);
} else {
  cases.push(['applyRope([4, 16] Float32Array)', () => pe.applyRope(x, 4, 16, ropeSmall, 0)]);
}
cases.push(['JSON.stringify(llama3 spec) (reference)', () => JSON.stringify(llama3)]);

/** Median microseconds per call over `rounds` timed batches of `batch` calls, after warm-up. */
function measure(fn, rounds = 31, batch = 2000) {
  for (let i = 0; i < 5000; i++) fn();
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn();
    times.push(Number(process.hrtime.bigint() - start) / 1000 / batch);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

const results = cases.map(([name, fn, rawFn]) => {
  const us = measure(fn);
  return rawFn ? { name, us, wasm: measure(rawFn) } : { name, us };
});
if (args.includes('--json')) {
  console.log(JSON.stringify(results, null, 2));
} else {
  console.log(`${pe.version()} from ${path.relative(process.cwd(), dir) || '.'}`);
  if (raw) console.log('   total     wasm  JS layer  (median us per call)');
  for (const { name, us, wasm } of results) {
    const split = wasm === undefined ? (raw ? ' '.repeat(18) : '') : `${wasm.toFixed(2).padStart(9)}${(us - wasm).toFixed(2).padStart(10)}`;
    console.log(`${us.toFixed(2).padStart(8)}${split}  ${name}`);
  }
}
