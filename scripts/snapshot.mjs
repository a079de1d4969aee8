// A fingerprint of every JS API entry point's answers, to show that a change of
// the binding layer (or of anything under it) leaves every result bit for bit
// and every error word for word as it was. It is a measurement, not a test:
// run it on the old build, keep the file, run it on the new one and compare.
//
//   node scripts/snapshot.mjs --out before.json [--dir DIR] [--seed S] [--count N]
//   node scripts/snapshot.mjs --compare before.json [--dir DIR] [--show K] [--ignore-keys a,b]
//     (K: print fuzz call K and its answer; a,b: result keys added since, left out of the answers)
//
// The calls are those of the JS fuzz (tests/wasm/fuzz.mjs makeCall: every
// function of the API, valid and invalid values) for seed S, indices [0, N),
// plus every family's default spec through each spec-taking function. Each
// answer is reduced to a SHA-256 of its canonical form: typed arrays by their
// type and bytes, numbers by their exact value (-0 and NaN kept), object keys
// sorted; an error by its class, message, .param, .value and .allowed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeCall, apiFunctions } from '../tests/wasm/fuzz.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.resolve(option('--dir', path.join(root, 'web', 'generated')));
const compareWith = option('--compare', null);
const before = compareWith ? JSON.parse(fs.readFileSync(compareWith, 'utf8')) : null;
const seed = before ? before.seed : Number(option('--seed', 20261125));
const count = before ? before.count : Number(option('--count', 40000));
const show = option('--show', null);  // a fuzz index: print its call and answer
// Result keys added since the file compared with was made, left out of the answers (named in the report).
const ignored = new Set((option('--ignore-keys', '') || '').split(',').filter(Boolean));
const { default: createPosenc } = await import(pathToFileURL(path.join(dir, 'posenc.mjs')).href);
const pe = await createPosenc({ wasmBinary: fs.readFileSync(path.join(dir, 'posenc.wasm')) });
// The C++ kernels, whatever the engine: the fused multiply-add path (relaxed SIMD, where Node runs with
// --experimental-wasm-relaxed-simd) rounds differently. Builds from before useKernels have only those.
if (typeof pe.useKernels === 'function') pe.useKernels('simd128');

/** The canonical text of an answer (see the top of the file). */
function canonical(value, seen = new Set()) {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value !== 'object' || value === null) return typeof value === 'string' ? JSON.stringify(value) : String(value);
  if (ArrayBuffer.isView(value))
    return `${value.constructor.name}:${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  if (seen.has(value)) return '<cycle>';
  seen.add(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, seen)).join(',')}]`;
  if (typeof value.free === 'function') return `<handle ${value.length ?? ''}>`;  // allocFloat32, trainer
  return `{${Object.keys(value).filter((k) => !ignored.has(k)).sort().map((k) => `${k}:${canonical(value[k], seen)}`).join(',')}}`;
}

function answer(call) {
  try {
    const result = pe[call.name](...call.args);
    if (call.name === 'allocFloat32') result.free();
    if (call.name === 'trainer') {
      const r = { total: result.total, done: result.done };
      result.free();
      return `ok ${canonical(r)}`;
    }
    if (call.name === 'trainerStart') {
      const r = { total: result.total };
      pe.trainer && result.handle && freeTrainer(result.handle);
      return `ok ${canonical(r)}`;
    }
    return `ok ${canonical(result)}`;
  } catch (error) {
    if (!(error instanceof Error)) return `threw ${String(error)}`;
    return `error ${error.constructor.name} ${JSON.stringify([error.message, error.param, error.value, error.allowed])}`;
  } finally {
    for (const buffer of call.made) buffer.free();
  }
}

function freeTrainer(handle) {
  if (typeof pe.trainerFree === 'function') pe.trainerFree(handle);
  else pe._posenc_trainer_free(handle);  // a build from before embind
}

const digest = (text) => crypto.createHash('sha256').update(text).digest('hex').slice(0, 24);
const d = pe.describe();
const entries = {};
// Every family's defaults through every function that takes a spec.
for (const family of d.families) {
  const spec = { type: family.type };
  const calls = {
    positionTable: [spec, 16], positionFrequencies: [spec], ropeInvFreq: [spec, 4096], decay: [spec, 64],
    attentionBias: [spec, 12], positionSimilarity: [spec, 12, 'cosine'],
    attention: [{ text: 'the cat sat on the mat because it was warm', d_model: 16, d_head: 8, encoding: spec, causal: true }],
  };
  for (const [name, callArgs] of Object.entries(calls)) entries[`${family.type}:${name}`] = digest(answer({ name, args: callArgs, made: [] }));
}
entries['describe'] = digest(answer({ name: 'describe', args: [], made: [] }));
for (let index = 0; index < count; index++) {
  const call = makeCall(pe, d, seed, index, false, before ? before.functions : apiFunctions());
  const text = answer(call);
  if (show !== null && index === Number(show)) console.log(call.name, call.args, '->', text.slice(0, 400));
  entries[`fuzz:${index}:${call.name}`] = digest(text);
}

if (before) {
  const keys = Object.keys(before.entries);
  const differing = keys.filter((k) => before.entries[k] !== entries[k]);
  console.log(`${keys.length - differing.length} of ${keys.length} answers equal (seed ${before.seed}, ${before.count} fuzz calls)` +
    (ignored.size ? `, result keys left out: ${[...ignored].join(', ')}` : ''));
  for (const k of differing.slice(0, 40)) console.log(`  differs: ${k}${k in entries ? '' : ' (not made now)'}`);
  const byFunction = new Map();
  for (const k of differing) byFunction.set(k.split(':').at(-1), (byFunction.get(k.split(':').at(-1)) ?? 0) + 1);
  if (differing.length) console.log(`differing answers by function: ${[...byFunction].map(([f, c]) => `${f} ${c}`).join(', ')}`);
  process.exit(differing.length ? 1 : 0);
} else {
  const out = option('--out', 'snapshot.json');
  fs.writeFileSync(out, JSON.stringify({ version: pe.version(), seed, count, functions: apiFunctions(), entries }, null, 1));
  console.log(`${Object.keys(entries).length} answers written to ${out}`);
}
