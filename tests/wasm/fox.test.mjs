// Forgetting Attention (Lin et al. 2025, arXiv 2503.02130) through the wasm module, against the official
// code's definition in float64 (tests/reference/forgetting-attention.mjs): the forget gates read the head's
// inputs x, and b(i, j) = log_lambda_i − log_lambda_j, the logs of the gates between key and query.
import test from 'node:test';
import assert from 'node:assert/strict';
import { forwardAgainstHead, loadPosenc } from './load.mjs';
import { decayBias, meanLogSigmoid } from '../reference/forgetting-attention.mjs';

const pe = await loadPosenc();

const D = 8;
const WEIGHT = [0.9, -1.4, 0.3, 2.1, -0.6, 0.05, -1.1, 0.7];

test('the head\'s bias is the reference\'s decay bias over the head\'s own inputs x (words and raw x)', () => {
  const text = 'the old man and the sea , the whale and the ship';
  const encoding = { type: 'fox', fgate_weight: WEIGHT, fgate_bias: 1.5 };
  const r = pe.attention({ text, d_model: D, d_head: D, encoding, causal: true, seed: 4 });
  const n = r.tokens.length;
  const want = decayBias(r.x, n, WEIGHT, 1.5);
  let worst = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      worst = Math.max(worst, Math.abs(r.terms.position[i * n + j] - want[i * n + j]) / Math.max(1, Math.abs(want[i * n + j])));
    }
    for (let j = i + 1; j < n; j++) assert.equal(r.logits[i * n + j], -Infinity);
  }
  assert.ok(worst < 1e-6, `worst relative error ${worst}`);
  // The same word at two places has the same gate: "the" at 4 and at 7 decays the key before it by the same log f.
  assert.equal(r.tokens[4], 'the');
  assert.equal(r.tokens[7], 'the');
  assert.ok(Math.abs(r.terms.position[4 * n + 3] - r.terms.position[7 * n + 6]) < 1e-6);
  // ... while other words' gates differ: the bias is not a function of i − j.
  assert.ok(Math.abs(r.terms.position[2 * n + 1] - r.terms.position[4 * n + 3]) > 1e-3);
});

test('attentionForward with fox is the head: the same output from the caller\'s weights', () => {
  const n = 40;
  const x = Float32Array.from({ length: n * D }, (_, k) => Math.sin(0.37 * k) * 1.3);
  const worst = forwardAgainstHead(pe, x, n, D, { type: 'fox', fgate_weight: WEIGHT, fgate_bias: 0.5 });
  assert.ok(worst < 1e-5, `worst ${worst}`);
});

test('the decay curve "bias" is m times the mean log gate over x ~ N(0, I): the reference\'s quadrature', () => {
  const spec = { type: 'fox', hidden_size: D, fgate_weight: WEIGHT, fgate_bias: 2 };
  const curves = pe.decay(spec, 50);
  const sd = Math.hypot(...WEIGHT.map(Math.fround));
  const mean = meanLogSigmoid(2, sd);
  // Float32Array: the curve is rounded once to float32 (2^-24 relative), and the two quadratures agree far closer than that.
  for (const m of [0, 1, 7, 50]) assert.ok(Math.abs(curves.bias[m] - m * mean) <= 1.2e-7 * Math.abs(m * mean), `m = ${m}`);
  // The stand-in sentence's last row: every step down is a log gate, so the curve never rises.
  for (let m = 1; m <= 50; m++) assert.ok(curves.stand_in[m] <= curves.stand_in[m - 1]);
});

test('bad fox specs name their key and its allowed values', () => {
  assert.throws(() => pe.attentionBias({ type: 'fox', hidden_size: 2, fgate_weight: [1, 2, 3] }, 4),
    (e) => e.param === 'fgate_weight' && /expected hidden_size = 2 numbers/.test(e.message));
  assert.throws(() => pe.attention({ text: 'a b', d_model: 4, d_head: 4, encoding: { type: 'fox', hidden_size: 8 } }),
    (e) => e.param === 'encoding.hidden_size' && /hidden_size = 8 is invalid/.test(e.message));
});
