// Compare mode's shipped fields (families/shipped-fields.js; web/generated/fields/compare.js, written by
// scripts/shipped-fields.mjs): computed again here from the request the page sends at compare mode's defaults, they are
// the file's, bit for bit (posenc.wasm's SIMD128 kernels, and posenc-view.wasm for the fields it computes); they answer
// only a request whose read params all match; the engine's server answers them with no module, a 'deferred' one then
// loads posenc-view.wasm, and computes any other request, on posenc.wasm where it trains.
import assert from 'node:assert/strict';
import test from 'node:test';
import { computeFields, createCalls } from '../../web/src/engine/calls.js';
import { SHIPPED_FIELD_VIEWS, startingModule } from '../../web/src/engine/modules.js';
import { loadCompute, trainedNeeds } from '../../web/src/families/compute.js';
import { loadTrained } from '../../web/src/families/trained.js';
import { SHIPS_FIELDS, loadShippedFields, shippedFields } from '../../web/src/families/shipped-fields.js';
import { decodeArrays } from '../../web/src/lib/base64-arrays.js';
import * as compare from '../../web/src/labs/compare-mode.js';
import { parse } from '../../web/src/state.js';
import { loadPosenc } from './load.mjs';
import { startServer } from './server-harness.mjs';
import stored from '../../web/generated/fields/compare.js';

const defaults = { ...parse(compare.parameters, {}).params, encoding: 'compare' };
const request = await compare.request(defaults);
const needs = [...new Set((await Promise.all(compare.views.map((id) => import(`../../web/src/views/${id}.js`)))).flatMap((v) => v.needs))];
await loadCompute('compare', needs, request);
await loadTrained(trainedNeeds('compare', request, needs));

/** A value with each typed array as its kind and its bytes: equal only bit for bit. */
const bits = (v) => (ArrayBuffer.isView(v) ? [v.constructor.name, ...new Uint8Array(v.buffer, v.byteOffset, v.byteLength)]
  : Array.isArray(v) ? v.map(bits) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, bits(x)])) : v);

test('the shipped fields are compare mode\'s fields at its defaults, computed again, bit for bit', async () => {
  assert.deepEqual(SHIPS_FIELDS, ['compare']);
  assert.deepEqual(Object.keys(stored.fields).sort(), [...needs].sort(), 'every field a compare view reads');
  assert.deepEqual(needs.sort(), ['curves', 'maps', 'spectra']);
  const full = await loadPosenc('full');
  full.useKernels('simd128');
  const view = await loadPosenc('view');
  for (const need of needs) {
    const shipped = decodeArrays(stored.fields[need].value);
    const { data, reads } = computeFields(createCalls(full), 'compare', request, [need]);
    assert.deepEqual(bits(shipped), bits(data[need]), need);
    assert.deepEqual(Object.keys(stored.fields[need].reads).sort(), [...reads].sort(), `${need}: the params it read`);
    // The view module computes the curves and spectra the same (the maps' trained heads need posenc.wasm's trainer).
    if (need !== 'maps') assert.deepEqual(bits(computeFields(createCalls(view), 'compare', request, [need]).data[need]), bits(shipped), need);
  }
  // What the file says it is: the default comparison's four lines, their trained heads' maps over the default sentence.
  const maps = decodeArrays(stored.fields.maps.value);
  assert.deepEqual(maps.map((m) => m.label), compare.COMPARISONS.families.slots);
  assert.deepEqual(maps[0].attention.tokens, ['the', 'dog', 'chased', 'the', 'cat']);
  for (const { attention } of maps) {
    assert.ok(attention.trainedAccuracy > 0.9, `${attention.trainedAccuracy}`);
    for (let i = 0; i < attention.n; i++) {  // each row of weights sums to 1 (softmax), causal: nothing above the diagonal
      const row = attention.weights.subarray(i * attention.n, (i + 1) * attention.n);
      assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5);
      assert.ok(row.subarray(i + 1).every((w) => w === 0));
    }
  }
});

test('they answer a request whose read params all match, with copies; any read param changed, the request is computed', async () => {
  assert.equal(shippedFields('compare', request, ['curves']), null, 'not loaded yet');
  await loadShippedFields('compare');
  await loadShippedFields('rope');  // ships none: nothing to load
  assert.equal(shippedFields('rope', request, ['curves']), null);
  const answer = shippedFields('compare', request, ['curves', 'spectra']);
  assert.deepEqual(Object.keys(answer.data), ['curves', 'spectra']);
  assert.deepEqual(bits(answer.data.curves), bits(decodeArrays(stored.fields.curves.value)));
  assert.notEqual(answer.data.curves[0].values, shippedFields('compare', request, ['curves']).data.curves[0].values, 'a copy: a reply transfers it');
  assert.ok(answer.reads.includes('slots') && answer.reads.includes('compare_distance'));
  // Params no field reads (how the curves are drawn, the maps' colours) may differ.
  assert.ok(shippedFields('compare', { ...request, compare_values: 'raw', weight_scale: 'row' }, ['curves', 'maps']));
  // A read param changed: computed.
  assert.equal(shippedFields('compare', { ...request, compare_distance: 512 }, ['curves']), null);
  assert.equal(shippedFields('compare', { ...request, text: 'the cat sat' }, ['maps']), null);
  assert.equal(shippedFields('compare', await compare.request({ ...defaults, config_d: 'kerple variant=power' }), ['spectra']), null);
  const [a, b] = compare.COMPARISONS.families.slots;
  assert.equal(shippedFields('compare', await compare.request({ ...defaults, config_a: b, config_b: a }), ['curves']), null, 'lines swapped');
  assert.equal(shippedFields('compare', request, ['curves', 'other']), null, 'a field that does not ship');
  assert.equal(shippedFields('compare', request, []), null);
});

test('a deferred server answers them with no module, then loads posenc-view.wasm; other requests are computed', async () => {
  assert.deepEqual(SHIPPED_FIELD_VIEWS, compare.views);
  for (const id of compare.views) assert.equal(startingModule(id), 'deferred', id);
  assert.equal(startingModule('decay'), 'view');
  const server = startServer({ module: 'deferred' });
  server.serve({ op: 'expect', family: 'compare' });
  needs.forEach((need, k) => server.serve({ id: k + 1, op: 'view', key: need, family: 'compare', params: request, needs: [need] }));
  for (const [k, need] of needs.entries()) {
    const answer = await server.reply(k + 1);
    assert.equal(answer.error, undefined, need);
    assert.deepEqual(bits(answer.data[need]), bits(decodeArrays(stored.fields[need].value)), need);
  }
  assert.deepEqual(server.loaded, [], 'no module before the shipped answers');
  // Then the view module loads, for the reader's next change.
  while (!server.messages.some((m) => m.op === 'ready')) await new Promise((resolve) => { setTimeout(resolve, 5); });
  assert.deepEqual(server.messages.find((m) => m.op === 'ready').module, 'view');
  assert.deepEqual(server.loaded, ['view']);
  server.serve({ id: 10, op: 'view', key: 'curves', family: 'compare', params: { ...request, compare_distance: 512 }, needs: ['curves'] });
  const wider = await server.reply(10);
  assert.equal(wider.error, undefined);
  assert.equal(wider.data.curves[0].values.length, 513);
  // Maps of another sentence train their heads: posenc.wasm.
  const other = { ...request, text: 'the cat sat on the mat' };
  server.serve({ id: 11, op: 'view', key: 'maps', family: 'compare', params: other, needs: ['maps'] });
  const maps = await server.reply(11);
  assert.equal(maps.error, undefined);
  assert.equal(maps.data.maps[0].attention.n, 6);
  assert.deepEqual(server.loaded, ['view', 'full']);
});

test('a deferred server whose first request computes loads its module then, and a view server answers them too', async () => {
  const deferred = startServer({ module: 'deferred' });
  deferred.serve({ id: 1, op: 'view', key: 'c', family: 'compare', params: { ...request, compare_distance: 64 }, needs: ['curves'] });
  const answer = await deferred.reply(1);
  assert.equal(answer.error, undefined);
  assert.equal(answer.data.curves[0].values.length, 65);
  assert.deepEqual(deferred.loaded, ['view']);
  const view = startServer({ module: 'view', group: 'rotary' });
  view.serve({ id: 1, op: 'view', key: 'c', family: 'compare', params: request, needs: ['maps'] });
  const shipped = await view.reply(1);
  assert.deepEqual(bits(shipped.data.maps), bits(decodeArrays(stored.fields.maps.value)));
  assert.deepEqual(view.loaded, ['view rotary'], 'its own module only: compare mode\'s lines were not computed');
});
