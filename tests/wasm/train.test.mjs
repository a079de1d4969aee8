// train() through JS: the experiment of the native build (tests/native/test_train.cpp pins its
// gradients), compared number for number with posenc_dump, deterministic, and its errors.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadPosenc } from './load.mjs';

const pe = await loadPosenc();
const dump = fileURLToPath(new URL('../../build/native/posenc_dump', import.meta.url));

test('train() runs the native experiment: the same losses and accuracies (float64 in both, float32 out)', () => {
  for (const [encoding, layers] of [[{ type: 'rope' }, 1], [{ type: 't5', num_buckets: 16 }, 2], [{ type: 'learned' }, 1]]) {
    const request = { task: 'copy', encoding, layers, d_model: 16, vocab: 8, train_length: 16, steps: 120, seed: 3, eval_lengths: [16, 48], eval_examples: 4 };
    const wasm = pe.train(request);
    const bytes = execFileSync(dump, ['train', JSON.stringify(request)]);
    const native = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8);
    assert.equal(wasm.loss.length, 120);
    let worst = 0;
    for (let s = 0; s < 120; s++) worst = Math.max(worst, Math.abs(wasm.loss[s] - native[s]) / Math.max(1e-3, native[s]));
    assert.ok(worst < 1e-5, `${encoding.type}: largest relative difference ${worst}`);
    wasm.eval.forEach((point, k) => {
      assert.equal(point.length, request.eval_lengths[k]);
      assert.ok(Math.abs(point.accuracy - native[120 + 2 * k]) < 1e-9, `${encoding.type} accuracy at ${point.length}`);
      assert.ok(Math.abs(point.loss - native[121 + 2 * k]) < 1e-6 * (1 + native[121 + 2 * k]), `${encoding.type} loss at ${point.length}`);
    });
    assert.deepEqual(Array.from(pe.train(request).loss), Array.from(wasm.loss));  // deterministic
  }
});

test('train() returns the trained parameters and names bad requests', () => {
  const r = pe.train({ encoding: { type: 't5', num_buckets: 8 }, layers: 2, d_model: 8, vocab: 6, train_length: 8, steps: 5, eval_lengths: [8] });
  assert.deepEqual(Object.keys(r.params), ['E', 'layer0', 'layer1', 'Wout', 'c']);
  assert.deepEqual(Object.keys(r.params.layer1), ['Wq', 'Wk', 'Wv', 't5']);
  assert.equal(r.params.E.length, 6 * 8);
  assert.equal(r.params.layer0.t5.length, 8);
  assert.throws(() => pe.train({ task: 'sort' }), (e) => e.param === 'task');
  assert.throws(() => pe.train({ encoding: { type: 'xpos' }, steps: 1 }), (e) => e.param === 'encoding.type' && /trained so far/.test(e.message));
  assert.throws(() => pe.train({ steps: 1e5, train_length: 1024, d_model: 256 }), (e) => e.param === 'steps' && /exceeds the limit/.test(e.message));
});
