// The fixed cost of a call into the wasm module: the median microseconds per
// call, after warm-up, of small calls whose work is negligible, so what is
// measured is the JS <-> wasm crossing (argument conversion, spec parsing,
// result copying).
//   node scripts/overhead.mjs                 the module in web/generated/
//   node scripts/overhead.mjs --dir DIR       DIR/posenc.mjs + DIR/posenc.wasm (e.g. another build)
//   node scripts/overhead.mjs --json          the numbers as JSON
//   node scripts/overhead.mjs --split         also the time of the embind function
//     itself (Module.posenc_<name>, wasm/bindings.cpp, called directly with a parsed spec's id:
//     the core's work and the result's conversion), and so the JS layer's part
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

// --split: the embind functions themselves (Module.posenc_<name>, wasm/bindings.cpp), with specs parsed here.
const core = args.includes('--split') && typeof pe.posenc_parseSpec === 'function'
  ? new Proxy({}, { get: (_, name) => pe[`posenc_${String(name)}`] }) : undefined;
const raw = core !== undefined;
const specOf = (spec) => core.parseSpec(JSON.stringify(spec), 0);

// [name, the call, the same work through the embind function (or undefined)]
const cases = [
  ['version()', () => pe.version(), raw && (() => core.version())],
  ['alibiSlopes(8)', () => pe.alibiSlopes(8), raw && (() => core.alibiSlopes(8))],
  ['ropeInvFreq(llama3 spec, 16)', () => pe.ropeInvFreq(llama3, 16),
    raw && ((spec) => () => core.ropeInvFreq(spec, 16))(specOf(llama3))],
  ['ropeInvFreq(plain rope spec, 16)', () => pe.ropeInvFreq(plainRope, 16),
    raw && ((spec) => () => core.ropeInvFreq(spec, 16))(specOf(plainRope))],
  ['attentionBias(alibi, 4)', () => pe.attentionBias(alibi, 4),
    raw && ((spec) => () => core.attentionBias(spec, 4))(specOf(alibi))],
  ['positionTable(sinusoidal d_model 16, 4)', () => pe.positionTable(sinusoidal, 4),
    raw && ((spec) => () => core.positionTable(spec, 4, undefined))(specOf(sinusoidal))],
];
if (typeof pe.allocFloat32 === 'function') {
  const input = pe.allocFloat32(x.length);
  input.array.set(x);
  const output = pe.allocFloat32(x.length);
  const spec = raw && specOf(ropeSmall);
  cases.push(['applyRope([4, 16] Float32Array)', () => pe.applyRope(x, 4, 16, ropeSmall, 0)]);
  cases.push(['applyRope([4, 16] handles, out)', () => pe.applyRope(input, 4, 16, ropeSmall, 0, output),
    raw && (() => core.applyRope({ address: input.ptr, length: 64 }, 4, 16, spec, 0, { address: output.ptr, length: 64, buffer: output }))]);
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
