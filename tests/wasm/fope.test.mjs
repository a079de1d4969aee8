// FoPE (Hua et al. 2025, arXiv 2412.17739) through the wasm module, against vLLM's definition in float64
// (tests/reference/fope.mjs: the frequency floor, the series of cos_coef and sin_coef, the padding with 1, neox layout).
import test from 'node:test';
import assert from 'node:assert/strict';
import { forwardAgainstHead, loadPosenc } from './load.mjs';
import { fopeApply, keptFrequencies } from '../reference/fope.mjs';

const pe = await loadPosenc();

/** Coefficients [K, K]: a deterministic mix far from the identity. */
const coef = (K, phase) => Array.from({ length: K * K }, (_, e) => (e % (K + 1) === 0 ? 1 : 0) + 0.4 * Math.sin(1.3 * e + phase));

test('applyRope is the reference\'s transform: the floor, the series and the padded pairs, at large positions too', () => {
  for (const [headDim, base, L] of [[16, 500, 64], [8, 100, 20], [32, 10000, 4096]]) {
    const K = keptFrequencies(headDim, base, L).length;
    assert.ok(K >= 1 && K < headDim / 2, `${headDim}, ${base}, ${L}: ${K} kept, some clipped`);
    const cosCoef = coef(K, 0.2), sinCoef = coef(K, 1.1);
    const spec = { type: 'fope', head_dim: headDim, rope_theta: base, max_position_embeddings: L, cos_coef: cosCoef, sin_coef: sinCoef };
    const n = 7, offset = 3 * L;  // positions past the training length: the series only repeats its terms' turns
    const x = Float32Array.from({ length: n * headDim }, (_, k) => Math.cos(0.37 * k + 0.1));
    const y = pe.applyRope(x, n, headDim, spec, offset);
    let worst = 0;
    for (let t = 0; t < n; t++) {
      const want = fopeApply(x.subarray(t * headDim, (t + 1) * headDim), offset + t, { headDim, base, maxPositions: L, cosCoef, sinCoef });
      for (let c = 0; c < headDim; c++) worst = Math.max(worst, Math.abs(y[t * headDim + c] - want[c]) / Math.max(1, Math.abs(want[c])));
    }
    assert.ok(worst < 1e-5, `${headDim}, ${base}, ${L}: worst relative error ${worst}`);
  }
});

test('ropeInvFreq gives the kept frequencies and 0 for the clipped pairs, in the half layout', () => {
  const f = pe.ropeInvFreq({ type: 'fope', head_dim: 16, rope_theta: 500, max_position_embeddings: 64 }, 64);
  const kept = keptFrequencies(16, 500, 64);
  assert.equal(kept.length, 3);
  for (let p = 0; p < 8; p++) assert.ok(Math.abs(f.inv_freq[p] - (kept[p] ?? 0)) < 1e-6 * (kept[p] ?? 1), `pair ${p}`);
  assert.deepEqual(Array.from(f.second_column), [8, 9, 10, 11, 12, 13, 14, 15]);
});

test('attentionForward with fope is the head: the same output from the caller\'s weights', () => {
  const n = 26, d = 8;
  const x = Float32Array.from({ length: n * d }, (_, k) => Math.cos(0.29 * k));
  const worst = forwardAgainstHead(pe, x, n, d, { type: 'fope', head_dim: d, rope_theta: 100, max_position_embeddings: 40, seed: 2 });
  assert.ok(worst < 1e-5, `worst ${worst}`);
});

test('bad coefficients are refused by name, with K', () => {
  assert.throws(() => pe.applyRope(new Float32Array(4), 1, 4, { type: 'fope', head_dim: 4, rope_theta: 100, max_position_embeddings: 100, cos_coef: [1] }, 0),
    (e) => e.param === 'cos_coef' && /K x K = 2 x 2 = 4/.test(e.message));
  assert.throws(() => pe.decay({ type: 'fope', head_dim: 6 + 1 }, 4), (e) => e.param === 'head_dim');
});
