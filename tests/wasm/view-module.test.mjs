// The two modules of one build (CMakeLists.txt): posenc-view.wasm has every function the views compute with at
// their first figure and lacks the trainer and the model lab's functions (its JS API throws .code 'unavailable'
// for them, naming the function); posenc.wasm has them all. Every field of every core family, at its defaults,
// is computed on the view module and is the full module's, bit for bit. The engine's server (engine/server.js
// createServer) starts on the view module and loads the full one when a request needs it, then serves from it.
import assert from 'node:assert/strict';
import test from 'node:test';
import { loadCoreFamilies, trainedNeeds } from '../../web/src/families/compute.js';
import { FAMILIES } from '../../web/src/families/index.js';
import { loadTrained } from '../../web/src/families/trained.js';
import { computeFields, createCalls } from '../../web/src/engine/calls.js';
import { needsFullModule } from '../../web/src/engine/modules.js';
import { errorOf, loadPosenc } from './load.mjs';
import { startServer } from './server-harness.mjs';

/** Every core family's fields, as the worker computes them (loaded as the worker loads them). */
const CORE_FAMILIES = await loadCoreFamilies();

const view = await loadPosenc('view');
const full = await loadPosenc('full');

/** The API functions only posenc.wasm has (wasm/bindings.cpp, under #ifndef POSENC_VIEW_MODULE). */
const FULL_ONLY = ['ropeStacks', 'attentionTemperature', 'mropePairAxes', 'mropePositions', 'attentionForward', 'train',
  'trainerStart', 'trainerStep', 'trainerEvaluate', 'trainerFinish', 'describe'];
/** The API functions both have. */
const BOTH = ['positionTable', 'positionFrequencies', 'ropeInvFreq', 'applyRope', 'decay', 'alibiSlopes', 'alibiBias', 't5Bucket',
  'attentionBias', 'debertaRelativePosition', 'positionSimilarity', 'attention', 'cope', 'embedTokens', 'tokenIds', 'version'];

test('posenc-view.wasm registers the views\' functions and not the trainer\'s or the model lab\'s; posenc.wasm all of them', () => {
  for (const name of BOTH) {
    assert.equal(typeof view[`posenc_${name}`], 'function', `view: ${name}`);
    assert.equal(typeof full[`posenc_${name}`], 'function', `full: ${name}`);
  }
  for (const name of [...FULL_ONLY, 'trainerFree']) {
    assert.equal(view[`posenc_${name}`], undefined, `view: ${name}`);
    assert.equal(typeof full[`posenc_${name}`], 'function', `full: ${name}`);
  }
  assert.equal(view.version(), full.version());
  // describe() is posenc.wasm's (the page reads describe.json); the JS API's limits are the same in both.
  assert.deepEqual(view.posenc_limits(), full.describe().limits);
  assert.deepEqual(full.posenc_limits(), full.describe().limits);
  assert.equal(errorOf(() => view.describe()).code, 'unavailable');
});

test('a function the view module lacks throws code "unavailable" naming it, before reading its arguments', () => {
  const request = { task: 'copy', encoding: { type: 'rope', head_dim: 8 }, layers: 1, d_model: 8, vocab: 6, train_length: 8, steps: 2 };
  const calls = [['train', () => view.train(request)], ['trainer', () => view.trainer(request)],
    ['ropeStacks', () => view.ropeStacks({ type: 'rope' }, 16)], ['mropePairAxes', () => view.mropePairAxes([1, 1, 2], false)],
    ['attentionTemperature', () => view.attentionTemperature(8192, 0.1, 100)],
    // an argument that would be refused: the module's lack is said first
    ['mropePositions', () => view.mropePositions(-1, 1, 1, 1)]];
  for (const [name, call] of calls) {
    const error = errorOf(call);
    assert.equal(error.code, 'unavailable', name);
    assert.equal(error.param, name === 'trainer' ? 'trainerStart' : name, name);
    assert.match(error.message, /posenc-view\.wasm/);
  }
  view.trainerFree(1);  // nothing to free, and no throw
  // The full module computes them.
  assert.equal(full.mropePairAxes([1, 1, 2], false).length, 4);
});

/** The defaults of a family's controls. */
const defaultsOf = (type) => ({ encoding: type, ...Object.fromEntries(FAMILIES[type].parameters.map((p) => [p.name, p.default])) });

test('every field of every core family at its defaults computes on the view module, equal to the full module\'s', async () => {
  const onView = createCalls(view);
  const onFull = createCalls(full);
  let fields = 0;
  for (const type of Object.keys(CORE_FAMILIES)) {
    // The attention lab's untrained head here; its trained head (a shipped one) in tests/wasm/heads.test.mjs.
    const params = { ...defaultsOf(type), trained_head: false };
    await loadTrained(trainedNeeds(type, params, []));  // its own trained set, which its fields read
    const needs = Object.keys(CORE_FAMILIES[type].fields(onView, params));
    await loadTrained(trainedNeeds(type, params, needs));
    assert.equal(needsFullModule(type, params, needs), false, type);
    assert.equal(needsFullModule(type, { ...params, trained_head: true, trained_task: 'induction' }, needs), needs.includes('attention'), type);
    for (const need of needs) {
      let a, b;
      try {
        a = computeFields(onView, type, params, [need]).data;
      } catch (error) {
        assert.notEqual(error.code, 'unavailable', `${type} ${need}: ${error.message}`);
        assert.equal(errorOf(() => computeFields(onFull, type, params, [need])).message, error.message, `${type} ${need}`);
        continue;
      }
      b = computeFields(onFull, type, params, [need]).data;
      assert.deepEqual(a, b, `${type} ${need}`);
      fields += 1;
    }
  }
  assert.ok(fields > 50, `${fields} fields computed`);
});

const ROPE = { type: 'rope', head_dim: 64, rope_theta: 10000, rope_scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 2048 } };

test('the server starts on the view module and loads the full one for a call it lacks, then serves from it', async () => {
  const server = startServer({ memoryLimit: 64 * 2 ** 20 });
  server.serve({ id: 1, op: 'call', method: 'table', args: [{ type: 'sinusoidal', d_model: 4 }, 3] });
  const table = await server.reply(1);
  assert.deepEqual(Array.from(table.value.data.slice(8)), [Math.sin(2), Math.cos(2), Math.sin(0.02), Math.cos(0.02)].map(Math.fround));
  assert.deepEqual(server.loaded, ['view']);
  assert.equal(server.messages.find((m) => m.op === 'ready').module, 'view');

  // ropeStacks: the view module throws 'unavailable', the server loads posenc.wasm and answers from it.
  server.serve({ id: 2, op: 'call', method: 'stacks', args: [ROPE, 4096] });
  const stacks = await server.reply(2);
  assert.equal(stacks.error, undefined);
  assert.deepEqual(stacks.value, full.ropeStacks(ROPE, 4096));
  assert.deepEqual(server.loaded, ['view', 'full']);
  assert.deepEqual(server.messages.filter((m) => m.op === 'module'), [{ op: 'module', module: 'full', group: null }]);

  // From then on the full module serves, a memory restart included.
  server.serve({ id: 3, op: 'call', method: 'table', args: [{ type: 'sinusoidal', d_model: 4096 }, 4096] });
  assert.equal((await server.reply(3)).value.data.length, 4096 * 4096);
  server.serve({ id: 4, op: 'call', method: 'tokenIds', args: ['the cat sat', 16] });
  const ids = await server.reply(4);
  assert.deepEqual(ids.value, full.tokenIds('the cat sat', 16));
  assert.ok(server.messages.some((m) => m.op === 'restarted'));
  assert.deepEqual(server.loaded, ['view', 'full', 'full']);
});

test('a view request that trains (the experiment lab) is computed on the full module from the start', async () => {
  const server = startServer({ sliceMs: 0 });
  const params = { task: 'copy', layers: 1, train_length: 8, sequences: 20, batch_size: 1, lr: 0.01, d_model: 8, vocab: 6, seed: 3,
    rope_scalings: false, drope: false, map_arm: 'rope' };
  server.serve({ id: 1, op: 'view', key: 'a', family: 'experiment', params, needs: ['experiment'] });
  const answer = await server.reply(1);
  assert.equal(answer.error, undefined);
  assert.ok(answer.data.experiment.runs.length > 1);
  assert.deepEqual(server.loaded, ['view', 'full']);
  // Its first progress came from the full module: nothing ran twice.
  assert.equal(server.messages.filter((m) => m.id === 1 && m.progress)[0].progress.done > 0, true);
});

test('if posenc.wasm cannot load, the request that needs it says so and the view module goes on serving', async () => {
  const server = startServer({}, { failFull: true });
  server.serve({ id: 1, op: 'call', method: 'stacks', args: [ROPE, 64] });
  const failed = await server.reply(1);
  assert.equal(failed.error.code, 'unavailable');
  assert.match(failed.error.message, /posenc\.wasm .*could not load: offline/);
  server.serve({ id: 2, op: 'call', method: 'alibiSlopes', args: [8] });
  assert.deepEqual(Array.from((await server.reply(2)).value), Array.from(full.alibiSlopes(8)));
  assert.deepEqual(server.loaded, ['view']);
});

test('a server started with module "full" loads posenc.wasm only', async () => {
  const server = startServer({ module: 'full' });
  server.serve({ id: 1, op: 'call', method: 'stacks', args: [ROPE, 64] });
  assert.equal((await server.reply(1)).error, undefined);
  assert.deepEqual(server.loaded, ['full']);
});

test('a server started with module "auto" loads nothing until its first request, then the module that request needs', async () => {
  // The attention lab's head trained on a task whose heads do not ship (families/heads.js): posenc.wasm alone.
  const trained = startServer({ module: 'auto' });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(trained.loaded, []);
  assert.equal(trained.messages.length, 0);
  trained.serve({ op: 'priority', key: 'x', priority: 1 });  // not a request for a module
  assert.deepEqual(trained.loaded, []);
  const params = { ...defaultsOf('sinusoidal'), trained_head: true, trained_task: 'induction', text: 'the cat sat' };
  trained.serve({ id: 1, op: 'view', key: 'a', family: 'sinusoidal', params, needs: ['attention'] });
  const answer = await trained.reply(1);
  assert.equal(answer.error, undefined);
  assert.ok(answer.data.attention);
  assert.deepEqual(trained.loaded, ['full']);
  assert.equal(trained.messages.find((m) => m.op === 'ready').module, 'full');
  assert.equal(trained.messages.filter((m) => m.op === 'module').length, 0);

  // A heatmap first (or a call): posenc-view.wasm, and posenc.wasm only when a later request needs it.
  const table = startServer({ module: 'auto' });
  table.serve({ id: 1, op: 'view', key: 'h', family: 'sinusoidal', params: defaultsOf('sinusoidal'), needs: ['table'] });
  assert.equal((await table.reply(1)).error, undefined);
  assert.deepEqual(table.loaded, ['view']);
  table.serve({ id: 2, op: 'call', method: 'stacks', args: [ROPE, 64] });
  assert.equal((await table.reply(2)).error, undefined);
  assert.deepEqual(table.loaded, ['view', 'full']);
  const call = startServer({ module: 'auto' });
  call.serve({ id: 1, op: 'call', method: 'alibiSlopes', args: [8] });
  assert.deepEqual(Array.from((await call.reply(1)).value), Array.from(full.alibiSlopes(8)));
  assert.deepEqual(call.loaded, ['view']);
});
