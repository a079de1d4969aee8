// NaN and ±Infinity inside the arrays of every JS API function that takes
// arrays: each is named where it is (`wk[17] = NaN`), with .code, .param (the
// array), .value and .allowed, whatever form the array takes (Float32Array,
// plain array, allocFloat32 buffer) and wherever the item is (first, middle,
// last) — before any bound of the core's that the item would break later
// (the audit of issue 24 found `attentionForward` blaming `x` for a NaN in
// `wk`, and `cope` accepting Infinity in `k`). Every error of the API carries
// the four fields: out of memory, a freed trainer or buffer, too many arguments.
import test from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, loadPosenc } from './load.mjs';

const pe = await loadPosenc();
const n = 4;
const d = 8;
const filled = (length, seed) => Float32Array.from({ length }, (_, i) => Math.sin(seed + i) * 0.5);

// [function, array name, its valid request built from arrays by name]
const CASES = [
  ['applyRope', 'x', { x: filled(n * d, 1) }, (a) => pe.applyRope(a.x, n, d, { type: 'rope', head_dim: d }, 0)],
  ['attention', 'x', { x: filled(n * d, 2) }, (a) => pe.attention({ x: a.x, d_model: d, d_head: 4 })],
  ...['x', 'wq', 'wk', 'wv'].map((name) => ['attentionForward', name,
    { x: filled(n * d, 3), wq: filled(d * 4, 4), wk: filled(d * 4, 5), wv: filled(d * 4, 6) },
    (a) => pe.attentionForward({ n, d_model: d, d_head: 4, x: a.x, wq: a.wq, wk: a.wk, wv: a.wv })]),
  ...['q', 'k', 'pos_emb'].map((name) => ['cope', name,
    { q: filled(n * d, 7), k: filled(n * d, 8), pos_emb: filled(3 * d, 9) },
    (a) => pe.cope({ n, d_head: d, npos_max: 3, q: a.q, k: a.k, pos_emb: a.pos_emb })]),
  ['t5Bucket', 'relativePositions', { relativePositions: Int32Array.of(-3, 0, 1, 7) },
    (a) => pe.t5Bucket(a.relativePositions, true, 32, 128)],
];

/** The items in three forms: a Float32Array (not for t5Bucket: its Int32Array cannot hold NaN), a plain array, a buffer. */
function forms(name, items) {
  const buffer = pe.allocFloat32(items.length);
  buffer.array.set(items);
  const typed = name === 'relativePositions' ? null : Float32Array.from(items);
  return [['typed', typed], ['plain', items], ['buffer', buffer]].filter(([, v]) => v !== null);
}

test('every array of every function: a NaN or infinity is named by the array and its index, in every form and place', () => {
  let checked = 0;
  for (const [fn, name, arrays, call] of CASES) {
    assert.doesNotThrow(() => call(arrays), `${fn} with valid arrays`);
    const length = arrays[name].length;
    for (const bad of [NaN, Infinity, -Infinity]) {
      for (const index of [0, length >> 1, length - 1]) {
        const items = Array.from(arrays[name]);
        items[index] = bad;
        for (const [form, value] of forms(name, items)) {
          const error = errorOf(() => call({ ...arrays, [name]: value }));
          const where = `${fn} ${name} ${form} [${index}] = ${bad}`;
          assert.equal(error.name, 'RangeError', where);
          assert.equal(error.code, 'bad_param', where);
          assert.equal(error.param, name, where);
          assert.equal(error.value, String(bad), where);
          assert.match(error.allowed, /finite|integer/, where);
          assert.equal(error.message.startsWith(`${name}[${index}] = ${bad} is invalid`), true, `${where}: ${error.message}`);
          if (form === 'buffer') value.free();
          checked++;
        }
      }
    }
  }
  assert.equal(checked, CASES.length * 3 * 3 * 3 - 3 * 3);  // 3 values x 3 places x 3 forms (t5Bucket: 2 forms)
});

test('the audit\'s cases: a NaN in attentionForward\'s wk, Infinity in cope\'s k and pos_emb', () => {
  const wk = filled(d * 4, 5);
  wk[17] = NaN;
  const forward = errorOf(() => pe.attentionForward({ n, d_model: d, d_head: 4, x: filled(n * d, 3), wq: filled(d * 4, 4), wk, wv: filled(d * 4, 6) }));
  assert.equal(forward.message, 'wk[17] = NaN is invalid: expected a finite number');
  const k = filled(n * d, 8);
  k[5] = -Infinity;
  const cope = errorOf(() => pe.cope({ n, d_head: d, npos_max: 3, q: filled(n * d, 7), k, pos_emb: filled(3 * d, 9) }));
  assert.equal(cope.message, 'k[5] = -Infinity is invalid: expected a finite number');
});

test('every error carries .code, .param, .value and .allowed: out of memory, freed objects, too many arguments', () => {
  const fields = (error) => ['code', 'param', 'value', 'allowed'].map((key) => typeof error[key]);
  const all = ['string', 'string', 'string', 'string'];
  // The 2 GiB heap filled with buffers of 512, 64 and 8 MiB until none more fits: then a 16 MiB table does not.
  const held = [];
  let oom = null;
  for (const length of [2 ** 27, 2 ** 24, 2 ** 21]) {
    for (;;) {
      try {
        held.push(pe.allocFloat32(length));
      } catch (error) {
        oom = error;
        break;
      }
    }
  }
  assert.ok(held.length >= 3 && held.length < 4 + 8 + 8, `${held.length} buffers`);
  assert.deepEqual(fields(oom), all);
  assert.equal(oom.param, 'length');
  const table = errorOf(() => pe.positionTable({ type: 'sinusoidal', d_model: 4096 }, 1024));
  assert.equal(table.code, 'out_of_memory', table.message);
  assert.deepEqual(fields(table), all);
  assert.equal(table.param, 'positionTable');
  assert.match(table.message, /out of memory.*MiB of 2048 MiB/);
  for (const buffer of held) buffer.free();
  assert.equal(pe.positionTable({ type: 'sinusoidal', d_model: 4096 }, 1024).rows, 1024, 'after free(), the request fits');

  const trainer = pe.trainer({ task: 'copy', encoding: { type: 'rope', head_dim: 8 }, d_model: 8, steps: 2, train_length: 4, eval_lengths: [4] });
  trainer.free();
  const freed = errorOf(() => trainer.step(1));
  assert.deepEqual([freed.code, freed.param], ['freed', 'trainer']);
  assert.deepEqual(fields(freed), all);
  const buffer = pe.allocFloat32(4);
  buffer.free();
  const gone = errorOf(() => buffer.ptr);
  assert.deepEqual([gone.code, gone.param], ['freed', 'buffer']);
  assert.deepEqual(fields(gone), all);
  const extra = errorOf(() => pe.alibiSlopes(8, 9));
  assert.equal(extra.name, 'TypeError');
  assert.deepEqual([extra.code, extra.param, extra.value], ['bad_call', 'arguments', '2 arguments']);
});
