// The decay comparison's shipped reference curves (families/references.js; web/generated/references.js, written by
// scripts/references.mjs): computed again here, before they are loaded, they are the file's, bit for bit, on posenc.wasm
// and posenc-view.wasm; loaded, every family's comparison at the default range is computed on its family group's
// module (only its own curve), equal to posenc-view.wasm's; the engine's server started on a group's module draws the
// comparison there at the default range, and loads posenc-view.wasm for another range.
import assert from 'node:assert/strict';
import test from 'node:test';
import { COMPARISON_NEEDS, loadCompute, trainedNeeds } from '../../web/src/families/compute.js';
import { FAMILIES } from '../../web/src/families/index.js';
import { loadTrained } from '../../web/src/families/trained.js';
import { SHIPPED_DISTANCE, decodeReferences, loadReferences, readsShipped, shippedReferences } from '../../web/src/families/references.js';
import { computeFields, createCalls } from '../../web/src/engine/calls.js';
import { viewGroupFor, viewGroupOf } from '../../web/src/engine/view-groups.js';
import { loadPosenc } from './load.mjs';
import { startServer } from './server-harness.mjs';
import stored from '../../web/generated/references.js';

const full = await loadPosenc('full');
const view = await loadPosenc('view');
// Every family's fields and trained sets, as a comparison at another range loads them.
const computing = { compare_distance: SHIPPED_DISTANCE * 2 };
await loadCompute('none', COMPARISON_NEEDS, computing);
await loadTrained(trainedNeeds('none', computing, COMPARISON_NEEDS));

// Before loadReferences: computed.
const computed = {
  full: createCalls(full).comparison(null, SHIPPED_DISTANCE).comparison,
  view: createCalls(view).comparison(null, SHIPPED_DISTANCE).comparison,
};

test('the shipped references are the comparison computed on posenc.wasm and posenc-view.wasm, bit for bit', () => {
  assert.equal(shippedReferences(SHIPPED_DISTANCE), null, 'not loaded yet');
  assert.equal(stored.distance, SHIPPED_DISTANCE);
  const shipped = decodeReferences(stored.references);
  assert.ok(shipped.length >= 14, `${shipped.length} references`);
  for (const mine of [computed.full, computed.view]) {
    assert.equal(mine.length, shipped.length);
    for (let k = 0; k < shipped.length; k++) {
      const { values, scale, ...rest } = mine[k];
      assert.deepEqual({ ...rest, scale }, { ...rest, scale: shipped[k].scale });
      assert.deepEqual(shipped[k].type, rest.type);
      assert.deepEqual(shipped[k].label, rest.label);
      assert.equal(values.length, SHIPPED_DISTANCE + 1);
      assert.deepEqual(new Uint32Array(shipped[k].values.buffer), new Uint32Array(values.buffer), rest.type);
    }
  }
  assert.equal(readsShipped(undefined), true);
  assert.equal(readsShipped('256'), SHIPPED_DISTANCE === 256);
  assert.equal(readsShipped(SHIPPED_DISTANCE + 1), false);
});

/** The defaults of a family's controls. */
const defaultsOf = (type) => ({ encoding: type, ...Object.fromEntries(FAMILIES[type].parameters.map((p) => [p.name, p.default])) });

test('loaded, each family\'s comparison at the default range computes on its group\'s module, as posenc-view.wasm\'s', async () => {
  await loadReferences();
  const copies = shippedReferences(SHIPPED_DISTANCE);
  assert.notEqual(copies[0].values, shippedReferences(SHIPPED_DISTANCE)[0].values, 'copies: a reply transfers its arrays');
  assert.equal(shippedReferences(SHIPPED_DISTANCE + 1), null);
  for (const type of Object.keys(FAMILIES).filter((t) => FAMILIES[t].views?.includes('decay-comparison'))) {
    const params = defaultsOf(type);
    assert.equal(params.compare_distance, SHIPPED_DISTANCE);
    assert.deepEqual(trainedNeeds(type, params, COMPARISON_NEEDS), trainedNeeds(type, params, []), `${type}: no other set`);
    await loadTrained(trainedNeeds(type, params, COMPARISON_NEEDS));  // its own
    const group = viewGroupFor('decay-comparison', type);
    assert.equal(group, viewGroupOf(type));
    const onGroup = computeFields(createCalls(await loadPosenc('view', group)), type, params, COMPARISON_NEEDS).data;
    const onView = computeFields(createCalls(view), type, params, COMPARISON_NEEDS).data;
    assert.deepEqual(onGroup, onView, type);
    // The other families' curves are the computed references; its own is computed with its settings.
    const mine = onGroup.comparison.findIndex((c) => c.type === type);
    onGroup.comparison.forEach((curve, k) => {
      if (k !== mine) assert.deepEqual(curve.values, computed.view[k].values, `${type}: ${curve.type}`);
    });
  }
  assert.equal(viewGroupFor('decay-comparison', 'rope', '512'), null, 'another range: posenc-view.wasm');
});

test('the server on a group\'s module draws the comparison at the default range there, and loads posenc-view.wasm for another', async () => {
  await loadReferences();
  const params = defaultsOf('alibi');
  const server = startServer({ group: 'bias' });
  server.serve({ id: 1, op: 'view', key: 'a', family: 'alibi', params, needs: COMPARISON_NEEDS });
  const answer = await server.reply(1);
  assert.equal(answer.error, undefined);
  assert.equal(answer.data.comparison.length, computed.view.length);
  assert.deepEqual(server.loaded, ['view bias']);
  server.serve({ id: 2, op: 'view', key: 'a', family: 'alibi', params: { ...params, compare_distance: 512 }, needs: COMPARISON_NEEDS });
  const wider = await server.reply(2);
  assert.equal(wider.error, undefined);
  assert.equal(wider.data.comparison[0].values.length, 513);
  assert.deepEqual(server.loaded, ['view bias', 'view']);
});
