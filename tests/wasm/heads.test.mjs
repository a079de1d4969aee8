// The attention lab's trained heads, shipped (families/heads.js, written by scripts/heads.mjs at build time): each
// core family's head at the page's defaults is the head engine/calls.js trainedHead trains, bit for bit; the page's
// request finds it under its key; and with it a trained-head view draws on posenc-view.wasm, equal to the full module,
// while a head that does not ship still trains on posenc.wasm.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import test from 'node:test';
import { loadCoreFamilies, trainedNeeds } from '../../web/src/families/compute.js';
import { FAMILIES } from '../../web/src/families/index.js';
import { loadTrained } from '../../web/src/families/trained.js';
import { headNeeds, loadHeads, shippedHead } from '../../web/src/families/heads.js';
import { askedHead, computeFields, createCalls } from '../../web/src/engine/calls.js';
import { SHIPPED_HEAD_TASK, TRAINED_HEAD_FIELDS } from '../../web/src/engine/modules.js';
import { ATTENTION_PARAMETERS } from '../../web/src/labs/attention-lab.js';
import { parse } from '../../web/src/state.js';
import { loadPosenc } from './load.mjs';
import { startServer } from './server-harness.mjs';

/** Every core family's fields, as the worker computes them (loaded as the worker loads them). */
const CORE_FAMILIES = await loadCoreFamilies();

const full = await loadPosenc('full');
const view = await loadPosenc('view');
const DEFAULT_KERNELS = full.kernelPath();
/** The page's params at a family's defaults (state.js parse of no input), as its request carries them. */
const defaultsOf = (family) => ({ encoding: family, ...parse(FAMILIES[family].parameters, {}).params });
const LAB = Object.keys(CORE_FAMILIES).filter((f) => defaultsOf(f).trained_head === true);

test('every core family with the attention lab ships its head, each the head trainedHead trains, bit for bit', async (t) => {
  assert.equal(LAB.length, 16);
  assert.equal(ATTENTION_PARAMETERS.find((p) => p.name === 'trained_task').default, SHIPPED_HEAD_TASK);
  const files = fs.readdirSync(new URL('../../web/generated/heads/', import.meta.url)).map((f) => f.replace(/\.js$/, ''));
  assert.deepEqual(files.sort(), [...LAB].sort());
  // Trained here first, before any shipped head is loaded (trainedHead would return it), on the path the script used.
  full.useKernels('simd128');
  t.after(() => full.useKernels(DEFAULT_KERNELS));
  const calls = createCalls(full);
  const fresh = {};
  for (const family of LAB) {
    const params = defaultsOf(family);
    await loadTrained(trainedNeeds(family, params, TRAINED_HEAD_FIELDS));
    const asked = askedHead(family, params, TRAINED_HEAD_FIELDS);
    assert.equal(asked.task, SHIPPED_HEAD_TASK, family);
    fresh[family] = { asked, head: calls.trainedHead(asked.spec, asked.task) };
  }
  await loadHeads(LAB);
  for (const family of LAB) {
    const { asked, head } = fresh[family];
    const shipped = shippedHead(asked.spec, asked.task);
    assert.ok(shipped, `${family}: a head ships for the page's request`);
    assert.deepEqual(shipped, head, family);  // E, Wq, Wk, Wv as Float32Arrays, the learned encoding, accuracy and seed
    assert.equal(shipped.E.length, 16 * 32, family);
    // It learned the copy task (the previous token) where positions let it: 0.9 at L_train, ALiBi's heads 0.89-0.95;
    // without positions (none) it cannot tell the previous token from the others.
    if (family === 'none') assert.ok(shipped.accuracy < 0.5, `none: ${shipped.accuracy}`);
    else assert.ok(shipped.accuracy >= 0.9, `${family}: accuracy ${shipped.accuracy}`);
  }
  // Another spec, or another task, is not shipped.
  const rope = fresh.rope.asked;
  assert.equal(shippedHead({ ...rope.spec, rope_theta: 500 }, 'copy'), null);
  assert.equal(shippedHead(rope.spec, 'induction'), null);
  // Key order does not matter.
  assert.ok(shippedHead(Object.fromEntries(Object.entries(rope.spec).reverse()), 'copy'));
});

test('a shipped head\'s views compute on posenc-view.wasm, equal to posenc.wasm\'s', async () => {
  const onView = createCalls(view);
  const onFull = createCalls(full);
  for (const family of LAB) {
    const params = defaultsOf(family);
    await loadHeads(headNeeds(family, params, ['attention']));
    await loadTrained(trainedNeeds(family, params, TRAINED_HEAD_FIELDS));
    const needs = Object.keys(CORE_FAMILIES[family].fields(onView, params)).filter((n) => TRAINED_HEAD_FIELDS.includes(n));
    assert.deepEqual(needs.sort(), [...TRAINED_HEAD_FIELDS].sort(), family);
    for (const need of needs) {
      const a = computeFields(onView, family, params, [need]).data;
      assert.deepEqual(a, computeFields(onFull, family, params, [need]).data, `${family} ${need}`);
    }
    const { attention } = computeFields(onView, family, params, ['attention']).data;
    assert.equal(attention.untrainedBecause, undefined, family);
    assert.equal(attention.trainedAccuracy, shippedHead(askedHead(family, params, ['attention']).spec, 'copy').accuracy);
  }
});

test('the embeds\' attention views at their defaults load posenc-view.wasm alone; a head that does not ship, posenc.wasm', async () => {
  const params = { ...defaultsOf('rope'), text: 'the cat sat on the mat' };
  // An embed of the attention map (startingModule 'auto'): its request's head ships, so the view module.
  const embed = startServer({ module: 'auto' });
  embed.serve({ id: 1, op: 'view', key: 'a', family: 'rope', params, needs: ['attention', 'ablation'] });
  const first = await embed.reply(1);
  assert.equal(first.error, undefined);
  assert.deepEqual(embed.loaded, ['view']);
  assert.equal(first.data.attention.trainedAccuracy, 1);
  // Another rope_theta, same task: that head trains, so posenc.wasm is loaded before the request is computed.
  embed.serve({ id: 2, op: 'view', key: 'a', family: 'rope', params: { ...params, rope_theta: 500 }, needs: ['attention'] });
  const other = await embed.reply(2);
  assert.equal(other.error, undefined);
  assert.deepEqual(embed.loaded, ['view', 'full']);
  assert.notDeepEqual(other.data.attention.weights, first.data.attention.weights);
  // A page started on 'auto' whose first request trains (another task) loads posenc.wasm alone.
  const induction = startServer({ module: 'auto' });
  induction.serve({ id: 1, op: 'view', key: 'a', family: 'rope', params: { ...params, trained_task: 'induction' }, needs: ['attention'] });
  assert.equal((await induction.reply(1)).error, undefined);
  assert.deepEqual(induction.loaded, ['full']);
});
