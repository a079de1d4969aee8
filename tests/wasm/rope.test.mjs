// The rotary family through the wasm module: ropeInvFreq, applyRope, decay,
// with values derived by hand from each paper's formula.
import test from 'node:test';
import assert from 'node:assert/strict';
import { leakAfter, loadPosenc } from './load.mjs';

const pe = await loadPosenc();
const close = (a, b, tolerance, what = '') => assert.ok(Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b)), `${what} ${a} vs ${b}`);
const rope = (extra = {}) => ({ type: 'rope', head_dim: 8, ...extra });

function randomVector(length, seed) {
  let s = seed;
  return Float32Array.from({ length }, () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 1073741824 - 1; });
}
const dot = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0);

test('ropeInvFreq: theta^(-2i/d) with attention factor 1 by default', () => {
  const r = pe.ropeInvFreq(rope(), 1);
  assert.ok(r.inv_freq instanceof Float32Array);
  assert.deepEqual(Array.from(r.inv_freq), [1, 0.1, 0.01, 0.001].map(Math.fround));
  assert.equal(r.attention_factor, 1);
  assert.equal(r.rotary_dim, 8);
});

test('ropeInvFreq: llama3 bands of Llama 3.1 (kept i <= 28, blended 29..34, divided i >= 35)', () => {
  const spec = { type: 'rope', head_dim: 128, rope_theta: 500000, max_position_embeddings: 131072,
    rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 } };
  const { inv_freq } = pe.ropeInvFreq(spec, 1);
  const base = (i) => 500000 ** (-i / 64);
  close(inv_freq[28], base(28), 1e-6, 'i=28');
  close(inv_freq[35], base(35) / 8, 1e-6, 'i=35');
  const smooth = (8192 / (2 * Math.PI / base(30)) - 1) / 3;  // 0.592849
  close(inv_freq[30], (1 - smooth) * base(30) / 8 + smooth * base(30), 1e-6, 'i=30');
});

test('ropeInvFreq: yarn ramp ends 20 and 46 for d = 128, L = 4096, attention 0.1 ln 4 + 1', () => {
  const spec = { type: 'rope', head_dim: 128, rope_scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 4096 } };
  const { inv_freq, attention_factor } = pe.ropeInvFreq(spec, 1);
  const base = (i) => 10000 ** (-2 * i / 128);
  close(inv_freq[20], base(20), 1e-6);
  close(inv_freq[46], base(46) / 4, 1e-6);
  close(inv_freq[33], base(33) * (0.5 / 4 + 0.5), 1e-6);
  close(attention_factor, 0.1 * Math.log(4) + 1, 1e-12);
});

test('ropeInvFreq: dynamic equals default up to max_position_embeddings, longrope switches after L', () => {
  const dynamic = rope({ max_position_embeddings: 100, rope_scaling: { rope_type: 'dynamic', factor: 2 } });
  assert.deepEqual(pe.ropeInvFreq(dynamic, 100).inv_freq, pe.ropeInvFreq(rope(), 1).inv_freq);
  close(pe.ropeInvFreq(dynamic, 200).inv_freq[3], 0.001 / 3, 1e-6, 'seq 2L, s 2: slowest / 3');
  const longrope = rope({ max_position_embeddings: 400, original_max_position_embeddings: 100,
    rope_scaling: { type: 'longrope', short_factor: [1, 1, 1, 1], long_factor: [1, 1, 1, 10] } });
  close(pe.ropeInvFreq(longrope, 100).inv_freq[3], 0.001, 1e-6);
  close(pe.ropeInvFreq(longrope, 101).inv_freq[3], 0.0001, 1e-6);
  close(pe.ropeInvFreq(longrope, 1).attention_factor, Math.sqrt(1 + Math.log(4) / Math.log(100)), 1e-12);
});

test('applyRope: norm preserved, and q_m . k_n = q_0 . k_(n-m) for offsets up to 1e5', () => {
  const spec = { type: 'rope', head_dim: 64 };
  const q = randomVector(64, 1);
  const k = randomVector(64, 2);
  for (const [m, n] of [[0, 5], [17, 4000], [99000, 100000], [50000, 50001]]) {
    const qm = pe.applyRope(q, 1, 64, spec, m);
    const kn = pe.applyRope(k, 1, 64, spec, n);
    close(Math.hypot(...qm), Math.hypot(...q), 1e-6, 'norm');
    close(dot(qm, kn), dot(pe.applyRope(q, 1, 64, spec, 0), pe.applyRope(k, 1, 64, spec, n - m)), 2e-5, `m=${m} n=${n}`);
  }
});

test('applyRope: pair (1, 0) at position 50 with inv_freq 0.01 turns by 0.5 rad; the tail past rotary_dim stays', () => {
  const out = pe.applyRope([0, 0, 1, 0], 1, 4, { type: 'rope', head_dim: 4, layout: 'interleaved' }, 50);
  close(out[2], Math.cos(0.5), 1e-7);
  close(out[3], Math.sin(0.5), 1e-7);
  const x = randomVector(3 * 96, 3);
  const y = pe.applyRope(x, 3, 96, { type: 'rope', head_dim: 96, partial_rotary_factor: 0.25 }, 777);
  for (let r = 0; r < 3; r++) {
    assert.deepEqual(y.subarray(r * 96 + 24, r * 96 + 96), x.subarray(r * 96 + 24, r * 96 + 96));
  }
});

test('applyRope: half and interleaved are the same rotation under the pair permutation', () => {
  const x = randomVector(16, 4);
  const xi = new Float32Array(16);
  for (let i = 0; i < 8; i++) { xi[2 * i] = x[i]; xi[2 * i + 1] = x[i + 8]; }
  const yh = pe.applyRope(x, 1, 16, { type: 'rope', head_dim: 16, layout: 'half' }, 9);
  const yi = pe.applyRope(xi, 1, 16, { type: 'rope', head_dim: 16, layout: 'interleaved' }, 9);
  for (let i = 0; i < 8; i++) {
    assert.equal(yi[2 * i], yh[i]);
    assert.equal(yi[2 * i + 1], yh[i + 8]);
  }
});

test('applyRope with xpos scales the query by zeta^(n / scale_base)', () => {
  const out = pe.applyRope([1, 0], 1, 2, { type: 'xpos', head_dim: 2, scale_base: 2 }, 3);
  const z = 0.4 / 1.4;
  close(out[0], Math.cos(3) * z ** 1.5, 1e-6);
  const key = pe.applyRope([1, 0], 1, 2, { type: 'xpos', head_dim: 2, scale_base: 2, role: 'key' }, 3);
  close(key[1], Math.sin(3) * z ** -1.5, 1e-6);
});

test('decay: RoFormer bound starts at (d/2 + 1)/2, q = k = 1 at head_dim, then falls', () => {
  const d = pe.decay({ type: 'rope', head_dim: 128 }, 500);
  assert.equal(d.distance.length, 501);
  assert.equal(d.distance[500], 500);
  close(d.upper_bound[0], 32.5, 1e-7);
  close(d.ones[0], 128, 1e-7);
  assert.ok(d.upper_bound[250] < 0.3 * d.upper_bound[0]);
  assert.deepEqual(pe.decay({ type: 'rope', head_dim: 128 }, 10, 7).random, pe.decay({ type: 'rope', head_dim: 128 }, 10, 7).random);
  assert.notDeepEqual(pe.decay({ type: 'rope', head_dim: 128 }, 10, 7).random, pe.decay({ type: 'rope', head_dim: 128 }, 10, 8).random);
});

test('bad rotary input throws a JS Error naming the parameter', () => {
  const cases = [
    [() => pe.ropeInvFreq(rope({ head_dim: 64, rotary_dim: 33 }), 1), /^rotary_dim = 33 is invalid: expected an even integer >= 2$/],
    [() => pe.ropeInvFreq(rope({ rope_scaling: { rope_type: 'linear', factor: 0.5 } }), 1), /^factor = 0.5 is invalid: expected a finite number >= 1$/],
    [() => pe.ropeInvFreq(rope({ rope_theta: NaN }), 1), /^rope_theta = NaN is invalid/],
    [() => pe.ropeInvFreq(rope({ rope_theta: Infinity }), 1), /^rope_theta = Infinity is invalid/],
    [() => pe.ropeInvFreq(rope({ rope_scaling: { rope_type: 'longrope', short_factor: [1, 1, 1, 1], long_factor: [1, 2] } }), 1),
      /^long_factor = a list of 2 numbers is invalid: expected a list of rotary_dim \/ 2 = 4 numbers$/],
    [() => pe.ropeInvFreq(rope({ rope_scaling: { rope_type: 'su' } }), 1),
      /^rope_type = "su" is invalid: expected one of "default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional"$/],
    [() => pe.ropeInvFreq(rope({ rope_scaling: { rope_type: 'yarn', factor: 2, beta: 3 } }), 1), /unknown key "beta"; accepted keys: rope_type, type, factor, original_max_position_embeddings/],
    [() => pe.ropeInvFreq(rope(), 0), /^seqLen = 0 is invalid/],
    [() => pe.ropeInvFreq({ type: 'sinusoidal' }, 1), /not a rotary encoding/],
    [() => pe.applyRope(new Float32Array(7), 2, 4, rope({ head_dim: 4 }), 0), /^x = an array of length 7 is invalid: expected n \* d = 8 numbers$/],
    [() => pe.applyRope(new Float32Array(8), 2, 4, rope(), 0), /^x = \[2, 4\] is invalid: expected a \[n, head_dim\] matrix with head_dim = 8$/],
    [() => pe.applyRope('abc', 1, 3, rope(), 0), /^x = "abc" is invalid/],
    [() => pe.applyRope(new Float32Array(8), 1, 8, rope(), -1), /^positionOffset = -1 is invalid/],
    [() => pe.decay(rope(), -1), /^maxDistance = -1 is invalid/],
  ];
  for (const [call, message] of cases) assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
});

test('rotary calls leak neither heap nor stack', () => {
  const spec = { type: 'rope', head_dim: 64, rope_scaling: { rope_type: 'yarn', factor: 4 } };
  const x = randomVector(8 * 64, 5);
  const round = () => {
    pe.ropeInvFreq(spec, 100);
    pe.applyRope(x, 8, 64, spec, 1000);
    pe.decay(spec, 50);
    try { pe.ropeInvFreq({ ...spec, head_dim: 63 }, 1); } catch { /* expected */ }
  };
  assert.deepEqual(leakAfter(pe, round, 2000), { heap: 0, stack: 0, memory: 0 });
});

test('ropeInvFreq gives the pair columns of the layout and YaRN\'s ramp ends, so the page computes neither', () => {
  const half = pe.ropeInvFreq({ type: 'rope', head_dim: 8 }, 16);
  assert.deepEqual(Array.from(half.first_column), [0, 1, 2, 3]);
  assert.deepEqual(Array.from(half.second_column), [4, 5, 6, 7]);
  assert.equal(half.ramp_low, undefined);
  const interleaved = pe.ropeInvFreq({ type: 'rope', head_dim: 8, layout: 'interleaved', partial_rotary_factor: 0.5 }, 16);
  assert.deepEqual(Array.from(interleaved.first_column), [0, 2]);
  assert.deepEqual(Array.from(interleaved.second_column), [1, 3]);
  // YaRN, d = 128, L = 4096, theta = 1e4: the pair turning r times over L is 128 ln(4096 / (2 pi r)) / (2 ln 1e4):
  // beta_fast 32 -> 20.95, floored to 20; beta_slow 1 -> 45.03, ceiled to 46.
  const yarn = { type: 'rope', head_dim: 128, rope_scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 4096 } };
  const at = (r) => (128 * Math.log(4096 / (2 * Math.PI * r))) / (2 * Math.log(1e4));
  const f = pe.ropeInvFreq(yarn, 4096);
  assert.equal(f.ramp_low, Math.floor(at(32)));
  assert.equal(f.ramp_high, Math.ceil(at(1)));
  assert.deepEqual([f.ramp_low, f.ramp_high], [20, 46]);
  // Without truncation and beta_fast = beta_slow the ramp has no width: the reference widens it by 0.001.
  const flat = pe.ropeInvFreq({ ...yarn, rope_scaling: { ...yarn.rope_scaling, truncate: false, beta_fast: 8, beta_slow: 8 } }, 4096);
  assert.ok(Math.abs(flat.ramp_low - at(8)) < 1e-12);
  assert.ok(Math.abs(flat.ramp_high - (at(8) + 0.001)) < 1e-12);
});

test('ropeStacks: dynamic NTK at twice max_position_embeddings grows transformers’ base only; proportional is transformers’ alone', () => {
  // d = 128, theta 1e4, L = 4096, s = 4, seq_len 8192: transformers' base is 1e4 * (4 * 8192 / 4096 - 3)^(128/126) = 1e4 * 5^(64/63),
  // so its slowest pair (i = 63) turns at base^(-126/128); llama.cpp and vLLM keep 1e4^(-126/128) (rope_stacks.hpp).
  const spec = { type: 'rope', head_dim: 128, max_position_embeddings: 4096, rope_scaling: { rope_type: 'dynamic', factor: 4 } };
  const r = pe.ropeStacks(spec, 8192);
  assert.deepEqual(r.stacks.map((s) => s.name), ['transformers', 'llama.cpp', 'vllm']);
  const grown = (1e4 * 5 ** (64 / 63)) ** (-126 / 128);
  const plain = 1e4 ** (-126 / 128);
  assert.ok(Math.abs(r.stacks[0].inv_freq[63] / grown - 1) < 1e-6);
  for (const s of r.stacks.slice(1)) assert.ok(Math.abs(s.inv_freq[63] / plain - 1) < 2e-5, s.name);
  assert.ok(Math.abs(r.max_relative[63] - (1 - grown / plain)) < 1e-5);
  assert.equal(r.first[63], 0);  // transformers against llama.cpp
  assert.ok(r.overall_max_relative > 0.79);
  const p = pe.ropeStacks({ type: 'rope', head_dim: 8, rope_parameters: { rope_type: 'proportional', rope_theta: 1e4, partial_rotary_factor: 0.5 } }, 8);
  assert.deepEqual(p.stacks.map((s) => s.modelled), [true, false, false]);
  assert.deepEqual([...p.stacks[0].inv_freq], [1, Math.fround(0.1), 0, 0]);
  assert.throws(() => pe.ropeStacks({ type: 'alibi' }, 8), { param: 'type' });
});

test('the page\'s pair count (rotary.js rotaryPairs, the pair slider\'s range) is the core\'s rotary_dim / 2 over a grid', async () => {
  const { rotaryPairs } = await import('../../web/src/families/rotary.js');
  let checked = 0;
  for (const headDim of [2, 4, 6, 10, 16, 64, 80, 96, 128, 256]) {
    for (const factor of [0.05, 0.1, 0.25, 0.3, 0.4, 0.5, 0.75, 0.9, 1]) {
      for (const ropeType of ['default', 'proportional']) {
        const spec = { type: 'rope', head_dim: headDim, partial_rotary_factor: factor, rope_scaling: { rope_type: ropeType } };
        let core = NaN;
        try {
          const r = pe.ropeInvFreq(spec, 1);
          // proportional keeps every pair turning or not (frequency 0): its slider spans all rotary_dim / 2 of them
          core = r.rotary_dim / 2;
          assert.equal(r.inv_freq.length, core);
        } catch (error) {
          if (error.param !== 'partial_rotary_factor') throw error;
        }
        const page = rotaryPairs({ head_dim: String(headDim), partial_rotary_factor: String(factor), rope_type: ropeType });
        assert.ok(Object.is(page, core), `head_dim ${headDim}, partial_rotary_factor ${factor}, ${ropeType}: page ${page}, core ${core}`);
        checked++;
      }
    }
  }
  assert.equal(checked, 180);
  // xPos has no partial_rotary_factor: every pair of head_dim turns.
  assert.equal(rotaryPairs({ head_dim: '64' }), 32);
});
