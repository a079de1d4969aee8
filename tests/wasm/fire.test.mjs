// FIRE (Li et al. 2023, arXiv 2310.04418) through the wasm module, against the
// definition in float64 (tests/reference/fire.mjs, as the paper's appendix code computes it):
//   b(i, j) = mlp( log(|c (i - j)| + 1) / (log(|c max(i, L)| + 1) + eps) ),  L = |L_multiplier init_L|,
//   mlp(x) = linear2_weight[head] . relu(linear1_weight x + linear1_bias) + linear2_bias[head].
import test from 'node:test';
import assert from 'node:assert/strict';
import { leakAfter, loadPosenc } from './load.mjs';
import { fireBias } from '../reference/fire.mjs';

const pe = await loadPosenc();

// Two heads of width 3, weights of both signs (so the MLP has kinks inside [0, 1]).
const SPEC = {
  type: 'fire', n_heads: 2, head: 1, mlp_width: 3, init_c: 0.1, init_L: 40,
  linear1_weight: [1.5, -2, 0.75], linear1_bias: [-0.3, 1.1, 0.2],
  linear2_weight: [0.4, -0.2, 0.9, -1.25, 0.5, 2], linear2_bias: [0.05, -0.6],
};

test('attentionBias(fire) is the definition, rows below and past L, and -Infinity after the query', () => {
  const n = 100;
  const b = pe.attentionBias(SPEC, n);
  assert.ok(b instanceof Float32Array && b.length === n * n);
  let worst = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (j > i) { assert.equal(b[i * n + j], -Infinity, `(${i}, ${j})`); continue; }
      const want = fireBias(SPEC, i, j);
      worst = Math.max(worst, Math.abs(b[i * n + j] - want) / Math.max(1, Math.abs(want)));
    }
  }
  assert.ok(worst < 1e-6, `worst relative error ${worst}`);
  // Below L a function of i - j; past L the normaliser log(c i + 1) grows and the same distance reads less far.
  assert.equal(b[30 * n + 20], b[15 * n + 5]);
  assert.notEqual(b[90 * n + 80], b[15 * n + 5]);
  // Without the mask, keys after the query get |c (i - j)|, as the reference computes.
  const open = pe.attentionBias({ ...SPEC, causal: false }, 20);
  assert.equal(open[2 * 20 + 9], open[9 * 20 + 2]);
});

test('FIRE by hand: W = 2, c = 0.1, L = 512 (the reference defaults); f(x) = 1.75 - x on [0, 0.5]', () => {
  // f(x) = 2 relu(x) + 3 relu(0.5 - x) + 0.25. b(10, 0): x = ln 2 / (ln 52.2 + 1e-6) = 0.1752548, f = 1.5747452.
  const spec = { type: 'fire', n_heads: 1, mlp_width: 2, linear1_weight: [1, -1], linear1_bias: [0, 0.5],
    linear2_weight: [2, 3], linear2_bias: [0.25] };
  const b = pe.attentionBias(spec, 11);
  assert.ok(Math.abs(b[10 * 11 + 0] - 1.5747452) < 1e-6);
  assert.equal(b[5 * 11 + 5], 1.75);
  // The decay is the row of the query at max_distance: b(10, 10 - m), the same normaliser ln 52.2 below L.
  const decay = pe.decay(spec, 10);
  assert.ok(Math.abs(decay.bias[10] - 1.5747452) < 1e-6);
  for (let m = 0; m <= 10; m++) assert.ok(Math.abs(decay.bias[m] - b[10 * 11 + 10 - m]) < 1e-6);
});

test('seeded FIRE: the page defaults give a finite causal bias, the same for the same seed', () => {
  const a = pe.attentionBias({ type: 'fire', seed: 7 }, 64);
  const b = pe.attentionBias({ type: 'fire', seed: 7 }, 64);
  assert.deepEqual(a, b);
  const other = pe.attentionBias({ type: 'fire', seed: 8 }, 64);
  assert.notDeepEqual(a, other);
  for (let i = 0; i < 64; i++) for (let j = 0; j <= i; j++) assert.ok(Number.isFinite(a[i * 64 + j]));
});

test('bad FIRE specs: a list of the wrong length names the key, its length and the expected length', () => {
  const cases = [
    [{ type: 'fire', mlp_width: 4, linear1_weight: [1, 2, 3] }, 'linear1_weight',
      /^linear1_weight = a list of 3 numbers is invalid: expected a list of mlp_width = 4 numbers$/],
    [{ type: 'fire', n_heads: 2, mlp_width: 2, linear2_weight: [1, 2] }, 'linear2_weight',
      /^linear2_weight = a list of 2 numbers is invalid: expected a list of n_heads \* mlp_width = 4 numbers$/],
    [{ type: 'fire', linear2_bias: 1 }, 'linear2_bias', /^linear2_bias = 1 is invalid: expected a list of finite numbers/],
    [{ type: 'fire', mlp_width: 1, linear1_bias: [2e6] }, 'linear1_bias', /^linear1_bias\[0\] = 2000000 is invalid/],
    [{ type: 'fire', head: 12 }, 'head', /^head = 12 is invalid: expected an integer in \[0, 11\]$/],
    [{ type: 'fire', init_c: -1 }, 'init_c', /^init_c = -1 is invalid: expected a finite number > 0/],
  ];
  for (const [spec, param, message] of cases) {
    assert.throws(() => pe.attentionBias(spec, 4), (e) => e instanceof RangeError && e.param === param && message.test(e.message),
      String(message));
  }
});

test('FIRE calls leak neither heap nor stack', () => {
  const round = () => {
    pe.attentionBias(SPEC, 24);
    pe.decay({ type: 'fire' }, 30);
    try { pe.attentionBias({ type: 'fire', linear1_weight: [1] }, 4); } catch { /* expected */ }
  };
  assert.deepEqual(leakAfter(pe, round, 500), { heap: 0, stack: 0, memory: 0 });
});
