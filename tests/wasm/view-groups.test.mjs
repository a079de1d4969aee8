// The family groups' view modules (wasm/view-groups.json; CMakeLists.txt links posenc-view-<group>.wasm for each):
// posenc-view.wasm's functions with one group's families. Every field of every family of a group, at its defaults,
// computes on the group's module and equals posenc-view.wasm's bit for bit; a spec of a family the module lacks, or
// another family's own function, throws .code 'unavailable' (as a function posenc-view.wasm lacks: so does a field that
// compares with other families, COMPARISON_NEEDS, which no view of a family's embed reads), and the engine's
// server, started on a group's module, then loads posenc-view.wasm in its place, and posenc.wasm after it if needed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import test from 'node:test';
import { COMPARISON_NEEDS, loadCoreFamilies, trainedNeeds } from '../../web/src/families/compute.js';
import { FAMILIES } from '../../web/src/families/index.js';
import { loadTrained } from '../../web/src/families/trained.js';
import { computeFields, createCalls } from '../../web/src/engine/calls.js';
import { CROSS_FAMILY_VIEWS, VIEW_GROUPS, viewGroupFor, viewGroupOf } from '../../web/src/engine/view-groups.js';
import { loadView } from '../../web/src/views/index.js';
import { errorOf, loadPosenc } from './load.mjs';
import { startServer } from './server-harness.mjs';

const CORE_FAMILIES = await loadCoreFamilies();
const DESCRIPTION = JSON.parse(fs.readFileSync(new URL('../../web/generated/describe.json', import.meta.url), 'utf8'));
const TYPES = DESCRIPTION.families.map((f) => f.type);
const view = await loadPosenc('view');
const groups = Object.fromEntries(await Promise.all(Object.keys(VIEW_GROUPS).map(async (g) => [g, await loadPosenc('view', g)])));

/** Each family's own bindings (wasm/bindings.cpp POSENC_HAS_FAMILY), called with good arguments. */
const OWN_FUNCTIONS = {
  alibi: (pe) => pe.alibiSlopes(8),
  t5: (pe) => pe.t5Bucket(new Int32Array([-3, 0, 5]), true, 32, 128),
  deberta: (pe) => pe.debertaRelativePosition(3, 3, 256, 512),
  cope: (pe) => pe.cope({ q: new Float32Array(4), k: new Float32Array(4), n: 2, d_head: 2, npos_max: 2, pos_emb: new Float32Array(4) }),
};

test('every family of the core is in a group, none in two; "none" in every group', () => {
  for (const type of TYPES) {
    const holding = Object.keys(VIEW_GROUPS).filter((g) => VIEW_GROUPS[g].includes(type));
    if (type === 'none') assert.deepEqual(holding, Object.keys(VIEW_GROUPS));
    else assert.equal(holding.length, 1, `${type}: ${holding}`);
    assert.equal(viewGroupOf(type), holding[0]);
  }
  for (const types of Object.values(VIEW_GROUPS)) for (const type of types) assert.ok(TYPES.includes(type), type);
  assert.equal(viewGroupOf('compare'), null);
  assert.equal(viewGroupOf(null), null);
});

test('CROSS_FAMILY_VIEWS are exactly the family views that read other families (COMPARISON_NEEDS): off their shipped range, on posenc-view.wasm', async () => {
  const cross = new Set();
  for (const family of Object.values(FAMILIES)) {
    for (const id of family.views) if ((await loadView(id)).needs.some((n) => COMPARISON_NEEDS.includes(n))) cross.add(id);
  }
  assert.deepEqual([...cross].sort(), [...CROSS_FAMILY_VIEWS].sort());
  assert.equal(viewGroupFor('decay-comparison', 'rope'), 'rotary');  // its references ship (families/references.js)
  assert.equal(viewGroupFor('decay-comparison', 'rope', '4096'), null);
  assert.equal(viewGroupFor('decay', 'rope', '4096'), 'rotary');
});

/** The defaults of a family's controls. */
const defaultsOf = (type) => ({ encoding: type, ...Object.fromEntries(FAMILIES[type].parameters.map((p) => [p.name, p.default])) });

for (const [group, types] of Object.entries(VIEW_GROUPS)) {
  test(`posenc-view-${group}.wasm: every field of ${types.join(', ')} at its defaults equals posenc-view.wasm's`, async () => {
    const pe = groups[group];
    const onGroup = createCalls(pe);
    const onView = createCalls(view);
    let fields = 0;
    for (const type of types) {
      const params = { ...defaultsOf(type), trained_head: false };
      await loadTrained(trainedNeeds(type, params, []));
      const needs = Object.keys(CORE_FAMILIES[type].fields(onView, params));
      await loadTrained(trainedNeeds(type, params, needs));
      for (const need of needs) {
        let a;
        try {
          a = computeFields(onGroup, type, params, [need]).data;
        } catch (error) {
          if (COMPARISON_NEEDS.includes(need) && error.code === 'unavailable') continue;
          assert.notEqual(error.code, 'unavailable', `${group}: ${type} ${need}: ${error.message}`);
          assert.equal(errorOf(() => computeFields(onView, type, params, [need])).message, error.message, `${type} ${need}`);
          continue;
        }
        assert.deepEqual(a, computeFields(onView, type, params, [need]).data, `${group}: ${type} ${need}`);
        fields += 1;
      }
    }
    assert.ok(fields >= 3 * types.length, `${fields} fields computed`);
    assert.equal(pe.version(), view.version());
    assert.deepEqual(pe.posenc_limits(), view.posenc_limits());
  });

  test(`posenc-view-${group}.wasm refuses another group's family and function with code "unavailable"`, () => {
    for (const type of TYPES.filter((t) => !types.includes(t))) {
      const error = errorOf(() => groups[group].decay({ type }, 8));
      assert.equal(error.code, 'unavailable', `${group}: ${type}`);
      assert.equal(error.param, 'type');
      assert.match(error.message, new RegExp(`is not in posenc-view-${group}\\.wasm .*posenc-view\\.wasm has every family`));
      // posenc-view.wasm reads the same spec: no 'unavailable' there
      try {
        view.decay({ type }, 8);
      } catch (viewError) {
        assert.notEqual(viewError.code, 'unavailable', type);
      }
    }
    for (const [type, call] of Object.entries(OWN_FUNCTIONS)) {
      if (types.includes(type)) assert.doesNotThrow(() => call(groups[group]), type);
      else assert.equal(errorOf(() => call(groups[group])).code, 'unavailable', `${group}: ${type}'s function`);
    }
    // A type no module has: 'unavailable' here (posenc-view.wasm says what is wrong), bad_param there.
    assert.equal(errorOf(() => groups[group].decay({ type: 'ropee' }, 8)).code, 'unavailable');
    assert.equal(errorOf(() => view.decay({ type: 'ropee' }, 8)).code, 'bad_param');
  });
}

test('the server on a group\'s module loads posenc-view.wasm for another family, then posenc.wasm for the trainer', async () => {
  const server = startServer({ group: 'rotary' });
  server.serve({ id: 1, op: 'call', method: 'decay', args: [{ type: 'rope', head_dim: 8 }, 16] });
  const rope = await server.reply(1);
  assert.deepEqual(rope.value, view.decay({ type: 'rope', head_dim: 8 }, 16));
  assert.deepEqual(server.loaded, ['view rotary']);
  assert.deepEqual(server.messages.find((m) => m.op === 'ready'), { op: 'ready', version: view.version(), module: 'view', group: 'rotary' });

  // A T5 bias: the rotary group lacks it; posenc-view.wasm answers.
  server.serve({ id: 2, op: 'call', method: 'bias', args: [{ type: 't5' }, 6] });
  const t5 = await server.reply(2);
  assert.equal(t5.error, undefined);
  assert.deepEqual(t5.value, { data: view.attentionBias({ type: 't5' }, 6), rows: 6, cols: 6 });
  assert.deepEqual(server.loaded, ['view rotary', 'view']);
  assert.deepEqual(server.messages.filter((m) => m.op === 'module'), [{ op: 'module', module: 'view', group: null }]);

  // ropeStacks: posenc-view.wasm lacks it too; posenc.wasm answers.
  server.serve({ id: 3, op: 'call', method: 'stacks', args: [{ type: 'rope', head_dim: 64 }, 4096] });
  assert.equal((await server.reply(3)).error, undefined);
  assert.deepEqual(server.loaded, ['view rotary', 'view', 'full']);

  // One request that needs both steps at once: a fresh server on the absolute group asked for a rope spec's stacks.
  const other = startServer({ group: 'absolute' });
  other.serve({ id: 1, op: 'call', method: 'stacks', args: [{ type: 'rope', head_dim: 64 }, 4096] });
  assert.equal((await other.reply(1)).error, undefined);
  assert.deepEqual(other.loaded, ['view absolute', 'view', 'full']);
});
