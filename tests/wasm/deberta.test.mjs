// DeBERTa through JS: debertaRelativePosition against an independent float32
// transcription of transformers' make_log_bucket_position, and attention()'s c2p
// and p2c terms against transformers' gathers written out tensor by tensor.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadPosenc } from './load.mjs';
import { referenceRelativePosition } from '../reference/transformers-deberta.mjs';

const pe = await loadPosenc();

test('debertaRelativePosition is build_relative_position, bucket for bucket', () => {
  for (const [q, k, buckets, max] of [[600, 600, 256, 512], [300, 40, 64, 128], [5, 9, -1, -1], [1, 2000, 256, 512], [50, 50, 4, 8]]) {
    const got = pe.debertaRelativePosition(q, k, buckets, max);
    const ref = referenceRelativePosition(q, k, buckets, max);
    assert.equal(got.length, q * k);
    const wrong = got.findIndex((b, at) => b !== ref[at]);
    assert.equal(wrong, -1, `${q} x ${k} at ${buckets} / ${max}: entry ${wrong}`);
  }
  // Worked by hand (tests/native/test_deberta.cpp): 1000 back at 256 / 512 is bucket -317 from the key's side.
  assert.equal(pe.debertaRelativePosition(1, 1001, 256, 512)[1000], -317);
  assert.throws(() => pe.debertaRelativePosition(2, 2, 256, 100), (e) => e.param === 'max_relative_positions');
});

test('attention() with DeBERTa: c2p and p2c are transformers\' gathers, every term over sqrt(3 d)', () => {
  // d 2, no buckets, att_span 2, E (4 rows) given, no LayerNorm, identity projections: K_r = Q_r = E.
  const E = [1, 0, 0, 1, 1, 1, 2, -1];
  const x = [1, 2, 3, -1, 0.5, 0.25];
  const r = pe.attention({ x, d_model: 2, d_head: 2, projections: 'identity',
    encoding: { type: 'deberta', position_buckets: -1, max_relative_positions: 2, norm_rel_ebd: 'none', rel_embeddings: E } });
  const n = 3, span = 2;
  const dot = (a, i, b, m) => a[i * 2] * b[m * 2] + a[i * 2 + 1] * b[m * 2 + 1];
  const clamp = (v) => Math.min(Math.max(v, 0), 2 * span - 1);
  // torch: c2p_att = q K_r^T [n, 4]; c2p[i][j] = c2p_att[i][clamp(rel[i][j] + span)], rel = i - j.
  // p2c_att = k Q_r^T; g[a][b] = p2c_att[a][clamp(-rel[a][b] + span)]; p2c = g^T.
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const c2p = dot(x, i, E, clamp(i - j + span));
      const p2c = dot(x, j, E, clamp(-(j - i) + span));
      const content = dot(x, i, x, j);
      const s = Math.sqrt(6);
      assert.ok(Math.abs(r.terms.c2p[i * n + j] - c2p / s) < 1e-6, `c2p (${i}, ${j})`);
      assert.ok(Math.abs(r.terms.p2c[i * n + j] - p2c / s) < 1e-6, `p2c (${i}, ${j})`);
      assert.ok(Math.abs(r.logits[i * n + j] - (content + c2p + p2c) / s) < 1e-6, `logit (${i}, ${j})`);
    }
  }
  assert.ok(Math.abs(r.terms.scale - 1 / Math.sqrt(6)) < 1e-7);
});
