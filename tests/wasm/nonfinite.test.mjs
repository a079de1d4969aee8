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

// ropeStacks (issue 35, finding 9): a stack whose arithmetic gives NaN or Infinity is marked (nonfinite: the values and
// the key that leads there) and never counted as agreeing; ropeInvFreq refuses such keys instead. The audit's two cases,
// then a sweep of rope_scaling values at the edges of their ranges.
const { verdict } = await import('../../web/src/views/profile-stacks.js');
const YARN_1E100 = { type: 'rope', head_dim: 128, rope_theta: 10000, max_position_embeddings: 4096,
  rope_scaling: { rope_type: 'yarn', factor: 1e100 } };
const LONGROPE_L1 = { type: 'rope', head_dim: 8, rope_theta: 10000, max_position_embeddings: 4096,
  rope_scaling: { rope_type: 'longrope', original_max_position_embeddings: 1, attention_factor: 1.2, short_factor: [1, 1, 1, 1],
    long_factor: [2, 2, 2, 2] } };

test('ropeStacks, the audit\'s cases: YaRN ×1e100 (llama.cpp NaN) and longrope at L = 1 (Infinity) are marked by key, never agree', () => {
  const yarn = pe.ropeStacks(YARN_1E100, 8192);
  const [hf, ggml, vllm] = yarn.stacks;
  assert.ok(Number.isNaN(ggml.attention_factor));
  assert.equal(ggml.nonfinite_param, 'factor');
  assert.match(ggml.nonfinite, /^attention_factor = NaN: factor = 1e\+100 is past float32's range/);
  for (const t of [hf, vllm]) {
    assert.equal(t.attention_factor, 0.1 * Math.log(1e100) + 1, t.name);  // float64 in both
    assert.deepEqual([t.nonfinite, t.nonfinite_param], ['', ''], t.name);
  }
  assert.equal(yarn.attention_factors_differ, true);
  assert.deepEqual(yarn.comparisons, [{ first: 0, second: 1, agree: false }, { first: 0, second: 2, agree: true }, { first: 1, second: 2, agree: false }]);
  const sentence = verdict(yarn);
  assert.doesNotMatch(sentence, /All 3 stacks agree/);
  assert.match(sentence, /^llama\.cpp gives attention_factor = NaN: factor = 1e\+100/);
  assert.match(sentence, /transformers and llama\.cpp cannot be compared; transformers and vllm agree; llama\.cpp and vllm cannot be compared/);

  const longrope = pe.ropeStacks(LONGROPE_L1, 16);
  assert.equal(longrope.stacks[0].attention_factor, 1.2);
  for (const t of longrope.stacks.slice(1)) {
    assert.equal(t.attention_factor, Infinity, t.name);
    assert.equal(t.nonfinite_param, 'original_max_position_embeddings', t.name);
    assert.match(t.nonfinite, /^attention_factor = Infinity: original_max_position_embeddings = 1 makes ln L = 0/, t.name);
  }
  assert.equal(longrope.attention_factors_differ, true);
  assert.ok(longrope.comparisons.every((c) => !c.agree), 'two infinities do not agree either');
  assert.match(verdict(longrope), /^llama\.cpp gives attention_factor = Infinity.*vllm gives attention_factor = Infinity/);
  assert.doesNotMatch(verdict(longrope), /\bagree\b/);
});

/** Specs at the edges of the rope_scaling keys' ranges: each type with one key (or two) set to an extreme value. */
function extremeSpecs() {
  const specs = [];
  const half = 4;
  const base = { type: 'rope', head_dim: 2 * half, rope_theta: 10000, max_position_embeddings: 4096 };
  const lists = (short, long) => ({ short_factor: Array(half).fill(short), long_factor: Array(half).fill(long) });
  const start = { linear: { factor: 4 }, ntk: { factor: 4 }, dynamic: { factor: 4 }, yarn: { factor: 4 },
    llama3: { factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 1024 }, longrope: lists(1, 2) };
  const factors = [1, 1e30, 3.5e38, 1e100, 1e300];
  const extremes = {
    linear: { factor: factors },
    ntk: { factor: factors },
    dynamic: { factor: factors, original_max_position_embeddings: [1, 2] },
    yarn: { factor: factors, original_max_position_embeddings: [1, 2, 2 ** 40], beta_fast: [1e-300, 1e300], beta_slow: [1e-300, 1e300],
      mscale: [0, 1e300], mscale_all_dim: [0, 1e-300, 1e300], attention_factor: [1e-300, 1e4] },
    llama3: { factor: factors, low_freq_factor: [1e-300, 4, 1e300], high_freq_factor: [1e-300, 1, 1e300], original_max_position_embeddings: [1, 2 ** 40] },
    longrope: { factor: factors, original_max_position_embeddings: [1, 2], attention_factor: [1e-300, 1.2, 1e4],
      short_factor: [1e-300, 1e-40, 1e300].map((v) => Array(half).fill(v)), long_factor: [1e-300, 1e-40, 1e300].map((v) => Array(half).fill(v)) },
  };
  for (const [type, keys] of Object.entries(extremes)) {
    const names = Object.keys(keys);
    for (const [k, name] of names.entries()) {
      for (const value of keys[name]) {
        specs.push({ ...base, rope_scaling: { rope_type: type, ...start[type], [name]: value } });
        // with the factor at its extremes too, and (longrope) the short context that makes the long factors apply
        for (const other of names.slice(k + 1)) for (const second of keys[other]) specs.push({ ...base, rope_scaling: { rope_type: type, ...start[type], [name]: value, [other]: second } });
      }
    }
  }
  return specs;
}

test('ropeStacks and ropeInvFreq at the edges of rope_scaling: every NaN or infinity is marked by key and never agrees; ' +
  'ropeInvFreq and transformers refuse by name instead', () => {
  const counts = { calls: 0, refused: 0, marked: 0 };
  const params = new Set();
  const allowedParams = new Set(['rope_scaling', 'factor', 'original_max_position_embeddings', 'beta_fast', 'beta_slow', 'mscale',
    'mscale_all_dim', 'attention_factor', 'low_freq_factor', 'high_freq_factor', 'short_factor', 'long_factor']);
  for (const spec of extremeSpecs()) {
    for (const seqLen of [2, 1e6]) {
      const where = `${JSON.stringify(spec.rope_scaling).slice(0, 160)} at ${seqLen}`;
      counts.calls++;
      let r;
      try {
        r = pe.ropeStacks(spec, seqLen);
      } catch (error) {
        counts.refused++;
        assert.equal(error.code, 'bad_param', `${where}: ${error.message}`);
        assert.ok(allowedParams.has(error.param), `${where}: .param ${error.param}`);
        assert.equal(errorOf(() => pe.ropeInvFreq(spec, seqLen)).param, error.param, where);  // transformers' refusal is ropeInvFreq's
        continue;
      }
      const f = pe.ropeInvFreq(spec, seqLen);
      assert.ok([...f.inv_freq, f.attention_factor, f.logit_scale].every(Number.isFinite), `${where}: ropeInvFreq`);
      const marked = new Set();
      r.stacks.forEach((t, k) => {
        if (!t.modelled) return;
        const bad = [...t.inv_freq, t.attention_factor, t.logit_scale].filter((x) => !Number.isFinite(x));
        if (!bad.length) {
          assert.deepEqual([t.nonfinite, t.nonfinite_param], ['', ''], `${where}: ${t.name}`);
          return;
        }
        marked.add(k);
        assert.notEqual(t.name, 'transformers', where);
        assert.match(t.nonfinite, new RegExp(`= ${String(bad[0])}`), `${where}: ${t.name}: ${t.nonfinite}`);
        assert.ok(allowedParams.has(t.nonfinite_param), `${where}: ${t.name}: ${t.nonfinite_param}`);
        params.add(t.nonfinite_param);
        if (!Number.isFinite(t.attention_factor)) assert.equal(r.attention_factors_differ, true, where);
        if (!Number.isFinite(t.logit_scale)) assert.equal(r.logit_scales_differ, true, where);
        t.inv_freq.forEach((x, i) => { if (!Number.isFinite(x)) assert.equal(r.max_relative[i], Infinity, `${where}: pair ${i}`); });
      });
      for (const c of r.comparisons) if (marked.has(c.first) || marked.has(c.second)) assert.equal(c.agree, false, where);
      if (marked.size) {
        counts.marked++;
        const sentence = verdict(r);
        assert.doesNotMatch(sentence, /All \d stacks agree/, where);
        for (const k of marked) {
          assert.ok(sentence.includes(`${r.stacks[k].name} gives ${r.stacks[k].nonfinite}`), `${where}: ${sentence}`);
          assert.doesNotMatch(sentence, new RegExp(`${r.stacks[k].name.replace('.', '\\.')} and \\S+ agree|and ${r.stacks[k].name.replace('.', '\\.')} agree`), where);
        }
      } else {
        assert.ok(r.max_relative.every(Number.isFinite), where);
      }
    }
  }
  // The sweep reaches each kind of mark the core traces, and refuses some combinations outright.
  assert.deepEqual([...params].sort(), ['factor', 'long_factor', 'mscale_all_dim', 'original_max_position_embeddings', 'short_factor']);
  assert.ok(counts.refused > 10 && counts.marked > 10, JSON.stringify(counts));
});
