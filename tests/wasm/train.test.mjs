// train() through JS: the experiment of the native build (tests/native/test_train.cpp pins its
// gradients), compared number for number with posenc_dump, deterministic, and its errors.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { errorOf, loadPosenc, trainInChunks } from './load.mjs';
import { FAMILY_TYPES } from '../../web/src/describe.js';
import { parameters } from '../../web/src/labs/experiment.js';
import { scheduleOf, stepsOf } from '../../web/src/labs/schedule.js';

const pe = await loadPosenc();
const DEFAULT_KERNELS = pe.kernelPath();
const dump = fileURLToPath(new URL('../../build/native/posenc_dump', import.meta.url));

test('train() is the native experiment bit for bit: every family, float32 in both (the C++ kernels)', (t) => {
  // The C++ kernels (separate multiply and add, as natively); the fused path is checked against the C++ path's
  // losses in kernels.test.mjs.
  pe.useKernels('simd128');
  t.after(() => pe.useKernels(DEFAULT_KERNELS));
  // The native build (posenc_dump, glibc) and the wasm build (musl) train in float32 with the same
  // operations in the same order; the functions whose results could differ between C libraries (KERPLE's log1p) are
  // computed in double and rounded once, so every step's loss is the same float.
  const families = FAMILY_TYPES;  // the core's, in its order
  // A text of made-up words for the transformer's runs (the language-model task).
  const words = ['the ', 'whale ', 'sea ', 'ship— ', 'and ', 'of ', 'captain ', 'ahab\n'];
  const text = Array.from({ length: 900 }, (_, i) => words[(i * 7 + (i >> 3)) % 8]).join('');
  families.forEach((type, k) => {
    // The attention-only model (one head, one or two layers) on copy; the transformer (two heads, an MLP, RMSNorm,
    // warm-up, cosine decay, clipping) on the text.
    const request = k % 3 === 2
      ? { task: 'text', text, encoding: { type }, layers: 2, n_heads: 2, d_model: 16, intermediate_size: 32, norm: 'rms_norm',
        train_length: 16, steps: 80, batch_size: 2, lr: 0.01, warmup_steps: 8, lr_decay: 'cosine', grad_clip: 0.5, seed: 3,
        eval_lengths: [16, 48], eval_examples: 4 }
      : { task: 'copy', encoding: { type }, layers: 1 + (k % 2), d_model: 16, vocab: 8, train_length: 16, steps: 80,
        seed: 3, eval_lengths: [16, 48], eval_examples: 4 };
    const wasm = pe.train(request);
    const bytes = execFileSync(dump, ['train', JSON.stringify(request)]);
    const native = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8);
    assert.equal(wasm.loss.length, 80);
    const differing = [];
    for (let s = 0; s < 80; s++) if (wasm.loss[s] !== Math.fround(native[s])) differing.push(s);
    assert.deepEqual(differing, [], `${type}: steps whose loss differs`);
    wasm.eval.forEach((point, e) => {
      assert.equal(point.length, request.eval_lengths[e]);
      assert.equal(point.accuracy, native[80 + 2 * e], `${type} accuracy at ${point.length}`);
      assert.equal(point.loss, native[81 + 2 * e], `${type} loss at ${point.length}`);
    });
    assert.deepEqual(Array.from(pe.train(request).loss), Array.from(wasm.loss));  // deterministic
  });
});

test('train() returns the trained parameters and names bad requests', () => {
  const r = pe.train({ encoding: { type: 't5', num_buckets: 8 }, layers: 2, d_model: 8, vocab: 6, train_length: 8, steps: 5, eval_lengths: [8] });
  assert.deepEqual(Object.keys(r.params), ['E', 'embedding_scale', 'layers', 'Wout', 'c']);
  assert.equal(r.params.embedding_scale, 1);  // T5 reads E as it is; sinusoidal sqrt(d_model):
  assert.equal(pe.train({ encoding: { type: 'sinusoidal' }, d_model: 16, vocab: 6, train_length: 8, steps: 1, eval_lengths: [8] })
    .params.embedding_scale, 4);
  assert.equal(r.params.layers.length, 2);
  assert.deepEqual(Object.keys(r.params.layers[1]), ['heads']);  // one head, no MLP, no norm: nothing else
  assert.deepEqual(Object.keys(r.params.layers[1].heads[0]), ['Wq', 'Wk', 'Wv', 'encoding']);
  assert.equal(r.params.E.length, 6 * 8);
  // The head's spec in the family's explicit form: one head, causal, the trained bias per bucket.
  const spec = r.params.layers[0].heads[0].encoding;
  assert.equal(spec.type, 't5');
  assert.equal(spec.n_heads, 1);
  assert.equal(spec.causal, true);
  assert.equal(spec.relative_attention_bias.length, 8);
  assert.ok(spec.relative_attention_bias.some((b) => b !== 0));  // trained away from zero
  // Attention maps at train_length and 4 x train_length (capped at the longest test length, 8).
  assert.deepEqual(r.maps.map((m) => m.length), [8, 8]);
  assert.equal(r.maps[0].weights.length, 2);
  assert.equal(r.maps[0].weights[1].length, 64);
  assert.equal(r.maps[0].tokens.length, 8);
  assert.throws(() => pe.train({ task: 'sort' }), (e) => e.param === 'task');
  // The budget of one call: train() counts every step; a trainer each chunk; one step and the
  // evaluation must each fit.
  const long = { steps: 1e5, train_length: 64, d_model: 32, eval_lengths: [64] };
  assert.throws(() => pe.train(long), (e) => e.param === 'steps' && /exceeds the limit/.test(e.message));
  const t = pe.trainer(long);
  assert.throws(() => t.step(1e5), (e) => e.param === 'count' && /trainerStep/.test(e.message));
  assert.equal(t.step(10), 10);
  t.free();
  assert.throws(() => pe.train({ train_length: 1024, d_model: 256, layers: 2, steps: 1 }), (e) => e.param === 'train_length');
  assert.throws(() => pe.train({ d_model: 256, steps: 1, eval_lengths: [4096] }), (e) => e.param === 'eval_lengths');
});

test('trainer() steps an experiment in chunks to train()\'s exact result, and frees it', () => {
  const request = { task: 'induction', encoding: { type: 'alibi' }, layers: 2, d_model: 8, vocab: 6, train_length: 12, steps: 37,
    recalibration_steps: 5, seed: 4, eval_lengths: [12, 48], eval_examples: 3 };
  const whole = pe.train(request);
  assert.equal(whole.loss.length, 42);  // steps + recalibration_steps (DroPE)
  const before = pe.heapBytesInUse();
  const t = pe.trainer(request);
  assert.equal(t.total, 42);
  const seen = [];
  while (t.done < t.total) seen.push(t.step(10));
  assert.deepEqual(seen, [10, 20, 30, 40, 42]);
  const chunked = t.finish();
  assert.deepEqual(Array.from(chunked.loss), Array.from(whole.loss));
  assert.deepEqual(chunked.eval, whole.eval);
  assert.equal(chunked.params.layers[0].heads[0].encoding.type, 'none');  // DroPE: evaluated without its encoding
  assert.throws(() => t.step(1), /after finish\(\) or free\(\)/);
  const dropped = pe.trainer(request);
  dropped.step(3);
  dropped.free();
  dropped.free();  // twice: nothing
  assert.throws(() => dropped.finish(), /after finish\(\) or free\(\)/);
  assert.ok(pe.heapBytesInUse() <= before + 4096, `heap grew from ${before} to ${pe.heapBytesInUse()} bytes`);
  assert.throws(() => pe.trainerStep(99, 1), (e) => e.param === 'handle' && /handle = 99 is invalid/.test(e.message));
  assert.throws(() => pe.trainerStep(t, 0), (e) => e.param === 'count');
});

test('trainer.losses(from) reads the curves while it trains: the pieces make finish()\'s loss and validation', () => {
  const request = { task: 'copy', encoding: { type: 'rope' }, d_model: 8, vocab: 6, train_length: 8, steps: 23, seed: 2,
    eval_lengths: [8], eval_examples: 2, validation_every: 5 };
  const whole = pe.train(request);
  const t = pe.trainer(request);
  assert.deepEqual(t.losses(), { loss: new Float32Array(0), validation: [] });
  const pieces = [];
  let read = 0;
  while (t.done < t.total) {
    t.step(7);
    const piece = t.losses(read);
    assert.equal(piece.loss.length, t.done - read);  // only the steps not read yet
    assert.deepEqual(piece.validation, whole.validation.filter((v) => v.step <= t.done));
    pieces.push(...piece.loss);
    read = t.done;
  }
  assert.deepEqual(pieces, Array.from(whole.loss));
  assert.deepEqual(Array.from(t.losses().loss), Array.from(whole.loss));  // from 0: every step
  assert.ok(whole.validation.length >= 4);
  assert.throws(() => t.losses(24), (e) => e instanceof RangeError && e.param === 'from');
  assert.throws(() => t.losses(-1), (e) => e.param === 'from');
  t.finish();
  assert.throws(() => t.losses(), (e) => e.code === 'freed');
});

test('mini-batches: a step\'s loss is the mean over its sequences', () => {
  const base = { task: 'induction', encoding: { type: 'rope', head_dim: 32 }, layers: 2, d_model: 32, vocab: 16, train_length: 32,
    seed: 5, eval_lengths: [32] };
  // batch_size 2 draws the two sequences that two steps of batch_size 1 draw; at lr 1e-6 the first update moves the
  // second step's loss by about 1e-6, so step 0 of the batch is their mean within that.
  const single = pe.trainer({ ...base, steps: 2, lr: 1e-6 }).finish().loss;
  const pair = pe.trainer({ ...base, steps: 1, lr: 1e-6, batch_size: 2 }).finish().loss;
  assert.ok(Math.abs(pair[0] - (single[0] + single[1]) / 2) < 1e-5 * single[0], `${pair[0]} vs ${(single[0] + single[1]) / 2}`);
  assert.notEqual(single[0], single[1], 'two different sequences');
  assert.equal(errorOf(() => pe.trainer({ ...base, batch_size: 0 })).param, 'batch_size');
});

test('two layers learn induction within the experiment page\'s default budget with RoPE, learned and sinusoidal positions', () => {
  // The page's defaults (600 steps of 16 sequences, peak lr 0.01, warm-up, cosine decay, clipping at 1), its request as
  // engine/calls.js builds it; one sequence per step at the same budget of steps does not learn it (issue 25).
  const params = { ...Object.fromEntries(parameters.map((p) => [p.name, p.default])), task: 'induction', layers: 2 };
  const steps = stepsOf(params);
  assert.equal(steps * params.batch_size, params.sequences);
  const request = (type, batch) => ({ task: params.task, layers: params.layers, train_length: params.train_length, steps,
    d_model: params.d_model, vocab: params.vocab, seed: params.seed, batch_size: batch, lr: params.lr, ...scheduleOf(steps),
    encoding: { type }, eval_lengths: [params.train_length] });
  for (const type of ['rope', 'learned', 'sinusoidal']) {
    const accuracy = trainInChunks(pe, request(type, params.batch_size)).eval[0].accuracy;
    assert.ok(accuracy >= 0.95, `${type}: accuracy ${accuracy} at L_train`);
  }
  const one = trainInChunks(pe, request('rope', 1)).eval[0].accuracy;
  assert.ok(one < 0.5, `one sequence per step: accuracy ${one} at L_train`);
});

test('whatever trainer() accepts runs step(1) and evaluate(1): the start budgets a whole step and every evaluation unit', () => {
  // The audit's step of 2.8e10 operations: one sequence fits a call, 256 of them do not. Refused at the start, as
  // batch_size; it used to start, and then every step(1) was refused with .param 'count'.
  const big = { d_model: 256, layers: 6, n_heads: 4, intermediate_size: 256, train_length: 128, batch_size: 256, steps: 1,
    eval_lengths: [128] };
  const batch = errorOf(() => pe.trainer(big));
  assert.equal(batch.param, 'batch_size');
  assert.match(batch.message, /^train \(batch_size\): 1 steps x 2\.8e10 operations per step = 2\.8e10 operations exceeds the limit of 3e8 operations$/);
  assert.equal(errorOf(() => pe.train(big)).param, 'batch_size');
  // The largest batch it accepts steps at once, and evaluates every unit (the longest last) one at a time.
  const starts = (b) => {
    try {
      pe.trainer({ ...big, batch_size: b }).free();
      return true;
    } catch (error) {
      assert.equal(error.param, 'batch_size');
      return false;
    }
  };
  let largest = 1;
  while (largest < 256 && starts(largest + 1)) largest++;
  assert.ok(largest > 1 && largest < 256, `largest batch ${largest}`);
  const t = pe.trainer({ ...big, batch_size: largest, eval_lengths: [32, 128], eval_examples: 1 });
  assert.equal(t.stepsPerCall, 1);
  assert.equal(t.step(1), 1);
  for (let k = 1; k <= t.evaluationTotal; k++) assert.equal(t.evaluate(1), k);
  t.free();
  // stepsPerCall steps run in one call, one more do not.
  const small = pe.trainer({ d_model: 16, train_length: 16, steps: 100000, eval_lengths: [16] });
  assert.ok(small.stepsPerCall > 1000);
  assert.equal(small.step(small.stepsPerCall), small.stepsPerCall);
  assert.equal(errorOf(() => small.step(small.stepsPerCall + 1)).param, 'count');
  small.free();
});

test('finish() is held to train()\'s budget (the same check), and eval_encoding is checked at the start', () => {
  // The audit's: 100,000 steps ran in one finish() (7.8 s) that train() refused.
  const long = { steps: 1e5, train_length: 64, d_model: 32, eval_lengths: [64] };
  const whole = errorOf(() => pe.train(long));
  const t = pe.trainer(long);
  const rest = errorOf(() => t.finish());
  assert.deepEqual([whole.param, rest.param], ['steps', 'steps']);
  assert.equal(rest.message.replace(/^trainerFinish/, 'train'), whole.message);
  // Refused, the trainer is kept: stepped until what is left fits, finish() gives train()'s result for those steps.
  while (t.done < t.total) t.step(t.stepsPerCall);
  assert.equal(t.finish().loss.length, 1e5);
  // And 8 samples of 512 characters after a prompt at train_length 256 (12.9 s in one finish() before).
  const words = ['the ', 'whale ', 'sea ', 'ship ', 'and ', 'of ', 'captain ', 'ahab\n'];
  const text = Array.from({ length: 4000 }, (_, i) => words[(i * 7 + (i >> 3)) % 8]).join('');
  const sampled = { task: 'text', text, d_model: 32, train_length: 256, steps: 1, eval_lengths: [256], samples: 8, sample_length: 512 };
  assert.equal(errorOf(() => pe.train(sampled)).param, 'steps');
  const s = pe.trainer(sampled);
  s.step(1);
  assert.equal(errorOf(() => s.finish()).param, 'steps');
  s.free();
  // eval_encoding: its family, its learned parameters' shape and its keys, at the start rather than after every step.
  const base = { d_model: 16, train_length: 8, steps: 400, eval_lengths: [32] };
  const family = errorOf(() => pe.trainer({ ...base, encoding: { type: 'rope' }, eval_encoding: { type: 'alibi' } }));
  assert.equal(family.param, 'eval_encoding.type');
  assert.match(family.message, /^eval_encoding\.type = "alibi" is invalid: expected the trained encoding's family, "rope"$/);
  const shape = errorOf(() => pe.trainer({ ...base, encoding: { type: 't5', num_buckets: 8 }, eval_encoding: { type: 't5', num_buckets: 64 } }));
  assert.equal(shape.param, 'eval_encoding');
  assert.equal(errorOf(() => pe.trainer({ ...base, encoding: { type: 'rope' },
    eval_encoding: { type: 'rope', rope_scaling: { rope_type: 'yarn', factor: -1 } } })).param, 'factor');
});

test('a raw handle names one trainer for its life: a stale one is refused as freed and reaches no other trainer', async () => {
  const fresh = await loadPosenc();  // slot 1 is the first
  const request = { d_model: 8, train_length: 8, steps: 5, eval_lengths: [8] };
  const first = fresh.trainerStart(request);
  assert.equal(first.handle, 1);
  fresh.trainerFree(1);
  const second = fresh.trainer(request);  // takes slot 1, under another handle
  const stale = errorOf(() => fresh.trainerStep(1, 1));
  assert.deepEqual([stale.code, stale.param, stale.constructor], ['freed', 'handle', Error]);
  assert.match(stale.message, /^handle = 1 is invalid: its trainer was finished or freed/);
  assert.equal(second.done, 0);
  fresh.trainerFree(1);  // frees nothing
  assert.equal(second.step(2), 2, 'the new trainer is still there');
  for (const call of [() => fresh.trainerEvaluate(1, 1), () => fresh.trainerFinish(1)]) assert.equal(errorOf(call).code, 'freed');
  // A finished trainer's handle is stale too; a number never handed out is a bad value.
  const done = fresh.trainerStart(request);
  fresh.trainerStep(done.handle, 5);
  fresh.trainerFinish(done.handle);
  assert.equal(errorOf(() => fresh.trainerStep(done.handle, 1)).code, 'freed');
  for (const never of [99, 0, -1, 1.5, 2 ** 60]) {
    const error = errorOf(() => fresh.trainerStep(never, 1));
    assert.deepEqual([error.code, error.param], ['bad_param', 'handle'], String(never));
  }
  second.free();
});

test('a refusal names the request\'s own key: n_heads or d_model for a head width, text for a text too long', () => {
  // The audit's: n_heads 16 with d_model 16 (RoPE's head_dim 1), and d_model 2 (NTK's rotary_dim 2), were 'head_dim'.
  const heads = errorOf(() => pe.trainer({ encoding: { type: 'rope' }, n_heads: 16, d_model: 16 }));
  assert.equal(heads.param, 'n_heads');
  assert.match(heads.message, /^n_heads = 16 is invalid: expected a value that gives rope a head_dim it takes \(head_dim = d_model \/ n_heads = 16 \/ 16 = 1;/);
  assert.equal(errorOf(() => pe.trainer({ encoding: { type: 'rope' }, eval_encoding: { type: 'rope', rope_scaling: { rope_type: 'ntk', factor: 8 } },
    d_model: 2, train_length: 8, eval_lengths: [16] })).param, 'd_model');
  // Every family at small widths: a refusal names a key of the request or of its encoding, never one the trainer set.
  const requestKeys = ['d_model', 'n_heads', 'train_length', 'eval_lengths', 'steps'];
  for (const { type } of pe.describe().families) {
    for (const [d_model, n_heads] of [[2, 1], [2, 2], [3, 1], [3, 3], [6, 2], [16, 16]]) {
      const encoding = { type };
      try {
        const t = pe.trainer({ d_model, n_heads, encoding, train_length: 8, steps: 1, eval_lengths: [8] });
        t.step(1);
        t.evaluate(t.evaluationTotal);
        t.finish();
      } catch (error) {
        assert.ok(requestKeys.includes(error.param) || error.param in encoding, `${type} d_model ${d_model} n_heads ${n_heads}: ${error.message}`);
      }
    }
  }
  // A text over max_json_bytes of JSON (4 MiB): named as text, not as the request.
  const long = errorOf(() => pe.trainer({ task: 'text', text: 'ab'.repeat(2.2 * 2 ** 20) }));
  assert.deepEqual([long.param, long.code], ['text', 'bad_param']);
  assert.match(long.message, /^text = a value of 4613736 bytes of JSON is invalid: expected a request of at most 4194304 bytes of JSON in all/);
  assert.equal(errorOf(() => pe.train({ task: 'text', text: 'é'.repeat(2.1 * 2 ** 20) })).param, 'text');  // 2 bytes a character
});
