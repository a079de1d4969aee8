// PoPE (Gopalakrishnan et al. 2025, arXiv 2509.10534) through the wasm module, against the reference's definition
// in float64 (tests/reference/pope.mjs: softplus magnitudes, position phases, the key's clamped bias).
import test from 'node:test';
import assert from 'node:assert/strict';
import { forwardAgainstHead, loadPosenc } from './load.mjs';
import { popeScore } from '../reference/pope.mjs';

const pe = await loadPosenc();

const D = 6;
const BIAS = [-0.3, 0, -2.5, -6, -1, -0.01];

test('the head\'s logits are the reference\'s scores over the head\'s own q and k, at an offset, / sqrt(d)', () => {
  const n = 12;
  const x = Float32Array.from({ length: n * D }, (_, k) => 1.7 * Math.sin(0.61 * k + 0.2));
  const encoding = { type: 'pope', theta: 30, phase_bias: BIAS };
  const r = pe.attention({ x, d_model: D, d_head: D, projections: 'identity', encoding, position_offset: 3 });
  let worst = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const want = popeScore(x.subarray(i * D, (i + 1) * D), i + 3, x.subarray(j * D, (j + 1) * D), j + 3, { theta: 30, bias: BIAS }) / Math.sqrt(D);
      worst = Math.max(worst, Math.abs(r.logits[i * n + j] - want) / Math.max(1, Math.abs(want)));
    }
  }
  assert.ok(worst < 1e-6, `worst relative error ${worst}`);
  assert.equal(r.terms.carrier, 'polar');
});

test('attentionForward with pope is the head: the same output from the caller\'s weights', () => {
  const n = 30;
  const x = Float32Array.from({ length: n * D }, (_, k) => Math.cos(0.29 * k));
  const worst = forwardAgainstHead(pe, x, n, D, { type: 'pope', phase_bias: BIAS });
  assert.ok(worst < 1e-5, `worst ${worst}`);
});

test('a phase bias outside [-2 pi, 0] is refused by name', () => {
  assert.throws(() => pe.decay({ type: 'pope', head_dim: 2, phase_bias: [0.1, 0] }, 4), (e) => e.param === 'phase_bias');
});
