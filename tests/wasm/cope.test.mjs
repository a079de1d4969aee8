// CoPE through JS: cope() against an independent transcription of x-transformers'
// tensor steps (tests/reference/x-transformers-cope.mjs), the head's terms, and errors.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadPosenc } from './load.mjs';
import { referenceCope } from '../reference/x-transformers-cope.mjs';
import { seededRandom } from '../../web/src/lib/random.js';

const pe = await loadPosenc();

test('cope() matches x-transformers step by step: gates, reverse cumulative sums clamped at npos_max - 1, interpolated q . e', () => {
  const random = seededRandom(7);
  for (const [n, d, npos] of [[1, 1, 1], [5, 3, 4], [12, 8, 6], [9, 2, 16]]) {
    const q = Array.from({ length: n * d }, () => random.normal());
    const k = Array.from({ length: n * d }, () => random.normal());
    const posEmb = Array.from({ length: npos * d }, () => random.normal());
    const got = pe.cope({ q, k, n, d_head: d, npos_max: npos, pos_emb: posEmb });
    const ref = referenceCope(q.map(Math.fround), k.map(Math.fround), n, d, posEmb.map(Math.fround), npos);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const at = `n ${n}, (${i}, ${j})`;
        assert.ok(Math.abs(got.gates[i * n + j] - (j > i ? 0 : ref.gates[i][j])) < 1e-6, `gates ${at}`);
        assert.ok(Math.abs(got.positions[i * n + j] - (j > i ? 0 : ref.positions[i][j])) < 1e-5, `positions ${at}`);
        if (j > i) assert.equal(got.bias[i * n + j], -Infinity, at);
        else assert.ok(Math.abs(got.bias[i * n + j] - ref.bias[i][j]) < 1e-5 * (1 + Math.abs(ref.bias[i][j])), `bias ${at}`);
      }
    }
  }
});

test('attention() with CoPE returns its gates and positions in the terms, and the bias added unscaled', () => {
  const x = [1, 0, 0.5, -1, 2, 0.25, 0, 1, -0.5];  // 3 tokens, d 3, identity projections: q = k = x
  const r = pe.attention({ x, d_model: 3, d_head: 3, projections: 'identity', encoding: { type: 'cope', npos_max: 4, seed: 2 } });
  assert.deepEqual(Object.keys(r.terms).sort(), ['carrier', 'content', 'gates', 'position', 'positions', 'scale']);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j <= i; j++) {
      const qk = [0, 1, 2].reduce((s, c) => s + x[i * 3 + c] * x[j * 3 + c], 0);
      assert.ok(Math.abs(r.logits[i * 3 + j] - (qk / Math.sqrt(3) + r.terms.position[i * 3 + j])) < 1e-5);
      assert.ok(Math.abs(r.terms.gates[i * 3 + j] - 1 / (1 + Math.exp(-qk / Math.sqrt(3)))) < 1e-6);
    }
  }
  assert.equal(r.logits[1], -Infinity);  // causal
});

test('cope() names a bad argument', () => {
  assert.throws(() => pe.cope({ q: [1, 2], k: [1], n: 2, d_head: 1, npos_max: 2, pos_emb: [0, 1] }),
    (e) => e.param === 'k' && /k = an array of length 1 is invalid: expected n \* d_head = 2 numbers/.test(e.message));
  assert.throws(() => pe.cope({ q: [1, 2], k: [1, 2], n: 2, d_head: 1, pos_emb: [0, 1] }), (e) => e.param === 'npos_max');
  assert.throws(() => pe.cope({ q: [3e38, 3e38], k: [1, 1], n: 2, d_head: 1, npos_max: 2, pos_emb: [1e4, 1e4] }),
    (e) => e.param === 'q' && /CoPE term q \. e stays within float32/.test(e.message));
});
