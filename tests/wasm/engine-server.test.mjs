// The engine's request loop (web/src/engine/server.js createServer) on the real
// module: a request that grows the wasm memory past the server's limit makes it
// load a fresh instance, which answers the next request correctly; small
// requests never do. A job (the experiment's training) posts progress in order,
// stops when cancelled or superseded (freeing its trainer) and answers what
// train() computes.
import assert from 'node:assert/strict';
import test from 'node:test';
import { createServer } from '../../web/src/engine/server.js';
import { loadPosenc } from './load.mjs';

/** A server over fresh instances of the module, the messages it posts, and its instances. */
function startServer(memoryLimit, options = {}) {
  const instances = [];
  const messages = [];
  const waiting = [];
  const post = (message) => {
    messages.push(message);
    for (const w of waiting.splice(0)) w();
  };
  const serve = createServer(() => loadPosenc().then((pe) => { instances.push(pe); return pe; }), post, { memoryLimit, ...options });
  /** The reply to request `id` (its final message). */
  async function reply(id) {
    for (;;) {
      const found = messages.find((m) => m.id === id && !m.started && !m.progress);
      if (found) return found;
      await new Promise((resolve) => waiting.push(resolve));
    }
  }
  /** The first message with op `op`. */
  async function event(op) {
    for (;;) {
      const found = messages.find((m) => m.op === op);
      if (found) return found;
      await new Promise((resolve) => waiting.push(resolve));
    }
  }
  /** Once request `id` has posted `count` progress messages. */
  async function progress(id, count) {
    while (messages.filter((m) => m.id === id && m.progress).length < count) await new Promise((resolve) => waiting.push(resolve));
  }
  return { serve, reply, event, progress, instances, messages };
}

test('a request that grows memory past the limit is answered, then the server starts a fresh instance', async () => {
  const limit = 64 * 2 ** 20;
  const server = startServer(limit);
  // sinusoidal [4096, 4096]: a 64 MiB result, so the heap grows past 64 MiB.
  server.serve({ id: 1, op: 'call', method: 'table', args: [{ type: 'sinusoidal', d_model: 4096 }, 4096] });
  const big = await server.reply(1);
  assert.equal(big.value.data.length, 4096 * 4096);
  assert.equal(big.value.data[4096 + 1], Math.fround(Math.cos(1)));  // row 1 (position 1), column 1: cos(1 * 1)
  const restarted = await server.event('restarted');
  assert.ok(restarted.memoryBytes > limit, `dropped ${restarted.memoryBytes} bytes`);
  assert.equal(server.instances.length, 2);
  assert.ok(server.instances[1].HEAPU8.buffer.byteLength < limit);

  // The fresh instance answers: row 2 of a d_model 4 table is sin 2, cos 2, sin 0.02, cos 0.02.
  server.serve({ id: 2, op: 'call', method: 'table', args: [{ type: 'sinusoidal', d_model: 4 }, 3] });
  const small = await server.reply(2);
  assert.deepEqual(Array.from(small.value.data.slice(8)), [Math.sin(2), Math.cos(2), Math.sin(0.02), Math.cos(0.02)].map(Math.fround));
  assert.equal(server.instances.length, 2);
});

test('requests that stay under the limit keep one instance (and its caches)', async () => {
  const server = startServer(64 * 2 ** 20);
  for (let id = 1; id <= 50; id++) server.serve({ id, op: 'call', method: 'bias', args: [{ type: 'alibi', n_heads: 8 }, 8 + id] });
  const last = await server.reply(50);
  assert.equal(last.value.rows, 58);
  assert.equal(last.value.data[1], -0.5);  // head 0 of 8: slope 2^-1, b(0, 1) = -slope * 1
  assert.equal(server.instances.length, 1);
  assert.equal(server.messages.filter((m) => m.op === 'restarted').length, 0);
});

// Jobs: the experiment trains a chunk of steps at a time, posting progress between chunks.
const { scheduleOf } = await import('../../web/src/labs/schedule.js');
const EXPERIMENT = { task: 'copy', layers: 1, train_length: 8, sequences: 60, batch_size: 1, lr: 0.01, d_model: 8, vocab: 6, seed: 3, rope_scalings: false, drope: true,
  map_arm: 'rope' };
const view = (id, key, params = EXPERIMENT, needs = ['experiment']) => ({ id, op: 'view', key, family: 'experiment', params, needs });

test('a job posts its progress in order, and its result is train()\'s, arm by arm; the same params come from the cache', async () => {
  const server = startServer(256 * 2 ** 20, { sliceMs: 0 });
  server.serve(view(1, 'a'));
  const answer = await server.reply(1);
  const progress = server.messages.filter((m) => m.id === 1 && m.progress).map((m) => m.progress);
  const { armsOf } = await import('../../web/src/labs/experiment.js');
  const arms = armsOf(EXPERIMENT);
  const { FAMILY_TYPES } = await import('../../web/src/describe.js');
  const total = FAMILY_TYPES.length * 60 + 60 + 15;  // every family, and DroPE's steps / 4 more
  assert.equal(arms.length, FAMILY_TYPES.length + 1);
  assert.ok(progress.length >= total / 25, `${progress.length} progress messages`);
  for (let k = 0; k < progress.length; k++) {
    const p = progress[k];
    assert.equal(p.total, total);
    assert.equal(p.arm.count, arms.length);
    assert.equal(p.arm.name, arms[p.arm.index].name);
    assert.ok(p.arm.done > 0 && p.arm.done <= p.arm.total);
    // Steps done only grow; between an arm's evaluation units (its steps all done) they stay.
    const grew = p.done > progress[k - 1]?.done || (p.done === progress[k - 1]?.done && p.arm.done === p.arm.total);
    if (k > 0) assert.ok(grew && p.arm.index >= progress[k - 1].arm.index, `message ${k} out of order`);
  }
  assert.equal(progress.at(-1).done, total);
  // The messages of request 1: started, progress ..., the answer last.
  const mine = server.messages.filter((m) => m.id === 1);
  assert.ok(mine[0].started && mine.at(-1) === answer && mine.slice(1, -1).every((m) => m.progress));

  const pe = await loadPosenc();
  const { runs } = answer.data.experiment;
  assert.deepEqual(runs.map((r) => r.name), arms.map((a) => a.name));
  for (const [k, arm] of arms.entries()) {
    const whole = pe.train({ task: 'copy', layers: 1, train_length: 8, steps: 60, d_model: 8, vocab: 6, seed: 3, encoding: arm.encoding,
      recalibration_steps: arm.recalibration_steps ?? 0, eval_lengths: [8, 16, 32, 64], batch_size: 1, lr: 0.01, ...scheduleOf(60) });
    assert.deepEqual(Array.from(runs[k].loss), Array.from(whole.loss), arm.name);
    assert.deepEqual(runs[k].eval, whole.eval, arm.name);
  }
  assert.equal(runs.at(-1).loss.length, 75);  // DroPE: 60 steps, then 15 without RoPE

  // Another view of the same experiment: from the cache, no progress, the maps of map_arm.
  server.serve(view(2, 'b', EXPERIMENT, ['trainedMaps']));
  const maps = await server.reply(2);
  assert.equal(server.messages.filter((m) => m.id === 2 && m.progress).length, 0);
  assert.equal(maps.data.trainedMaps.arm, 'rope');
  assert.deepEqual(maps.data.trainedMaps.maps.map((m) => m.length), [8, 32]);
  assert.ok(maps.reads.includes('map_arm'));
  assert.ok(!answer.reads.includes('map_arm'));
});

test('cancel stops a job between chunks and frees its trainer; a newer request of the key supersedes it', async () => {
  const server = startServer(256 * 2 ** 20, { sliceMs: 0 });
  await server.event('ready');
  const pe = server.instances[0];
  const long = { ...EXPERIMENT, sequences: 4000, train_length: 32, d_model: 16 };
  pe.train({ steps: 1, eval_lengths: [8] });  // the core's first training allocates what it keeps (35 kB, once)
  const heap = pe.heapBytesInUse();
  server.serve(view(1, 'a', long));
  await server.progress(1, 3);
  server.serve({ op: 'cancel', key: 'a' });
  assert.deepEqual(await server.reply(1), { id: 1, cancelled: true });
  assert.ok(pe.heapBytesInUse() <= heap + 4096, `heap ${heap} -> ${pe.heapBytesInUse()} bytes`);

  server.serve(view(2, 'a', long));
  await server.progress(2, 2);
  server.serve(view(3, 'a'));  // the same view, newer params
  assert.deepEqual(await server.reply(2), { id: 2, superseded: true });
  assert.ok(pe.heapBytesInUse() <= heap + 4096, `heap ${heap} -> ${pe.heapBytesInUse()} bytes`);  // before request 3 starts
  const newer = await server.reply(3);
  assert.equal(newer.data.experiment.runs[0].loss.length, 60);
  // A cancelled job left nothing in the cache: asked again, it trains again (progress again).
  const settled = pe.heapBytesInUse();  // (the core keeps a bounded cache of what it trained: ~0.8 kB per request, at most ~200 kB)
  server.serve(view(4, 'c', long));
  await server.progress(4, 1);
  server.serve({ op: 'cancel', key: 'c' });
  assert.deepEqual(await server.reply(4), { id: 4, cancelled: true });
  assert.ok(pe.heapBytesInUse() <= settled + 4096, `heap ${settled} -> ${pe.heapBytesInUse()} bytes`);
});

test('a view\'s reads include what its jobs read while they run (the model lab\'s settings), in an answer and in a refusal', async () => {
  // A view is recomputed only when a parameter it read changes (session.js): a setting read inside a job must count, or
  // changing layer_kind keeps the old comparison, and a refused layer_kind from a link never falls back (issue 35, 10).
  const { FAMILIES } = await import('../../web/src/families/index.js');
  const defaults = Object.fromEntries(FAMILIES.model_profile.parameters.map((p) => [p.name, p.default]));
  const server = startServer(256 * 2 ** 20);
  const ask = (id, params, needs) => server.serve({ id, op: 'view', key: `lab-${id}`, family: 'model_profile', params: { ...defaults, ...params }, needs });
  ask(1, {}, ['stacks']);
  const stacks = await server.reply(1);
  assert.deepEqual(['config_json', 'layer_kind', 'seq_len'].filter((name) => !stacks.reads.includes(name)), []);
  ask(2, { layer_kind: 1 }, ['stacks']);
  const second = (await server.reply(2)).data.stacks;
  assert.equal(second.kind.index, 1);
  ask(5, { layer_kind: 0 }, ['stacks']);
  const first = (await server.reply(5)).data.stacks;
  assert.equal(first.kind.index, 0);
  // Unset, the comparison opens on the kind where the most pairs of stacks disagree.
  const disagree = (x) => (x.none ? -1 : x.comparisons.filter((c) => !c.agree).length);
  assert.equal(stacks.data.stacks.chosen, 'where the stacks differ most');
  assert.equal(stacks.data.stacks.kind.index, disagree(second) > disagree(first) ? 1 : 0);
  assert.equal(disagree(stacks.data.stacks), Math.max(disagree(first), disagree(second)));

  // Gemma-4 has 2 kinds of layer: layer_kind 7 is refused at compute time, inside the job, naming the control.
  ask(3, { layer_kind: 7 }, ['stacks']);
  const kind = (await server.reply(3)).error;
  assert.equal(kind.param, 'layer_kind');
  assert.match(kind.message, /^layer_kind = 7 is invalid: expected an integer in \[0, 1\]/);
  assert.ok(kind.reads.includes('layer_kind'), kind.reads.join());
  // The decay at the control's largest distance: Gemma-4's 256-pair global layers exceed the core's work limit.
  ask(4, { max_distance: 200000 }, ['kindDecay']);
  const decay = (await server.reply(4)).error;
  assert.equal(decay.param, 'maxDistance');
  assert.match(decay.message, /exceeds the limit/);
  assert.ok(decay.reads.includes('max_distance'), decay.reads.join());
});

test('an expect is answered by nothing and loads its family\'s fields and trained set before any request names it', async () => {
  // KERPLE: no other test of this file computes it, so nothing here has loaded its module or its trained set yet.
  const { computeOf } = await import('../../web/src/families/compute.js');
  const { trainedOf } = await import('../../web/src/families/trained.js');
  assert.throws(() => computeOf('kerple'), /not loaded yet/);
  assert.equal(trainedOf('kerple'), null);
  const server = startServer(128 * 2 ** 20);
  server.serve({ op: 'expect', family: 'kerple', weights: 'trained' });
  server.serve({ op: 'expect', family: 'no such family' });  // a hint: nothing to load, nothing said
  const loaded = () => {
    try {
      return Boolean(computeOf('kerple')) && trainedOf('kerple') !== null;
    } catch {
      return false;
    }
  };
  for (let k = 0; k < 500 && !loaded(); k++) await new Promise((resolve) => { setTimeout(resolve, 10); });
  assert.ok(computeOf('kerple').fields);
  assert.equal(trainedOf('kerple').spec.type, 'kerple');
  await server.event('ready');
  assert.deepEqual(server.messages.filter((m) => m.op !== 'ready'), []);
});

test('the decay comparison, asked of one family, computes every family\'s reference curve (their modules loaded for it)', async () => {
  const { FAMILIES } = await import('../../web/src/families/index.js');
  const params = { encoding: 'alibi', ...Object.fromEntries(FAMILIES.alibi.parameters.map((p) => [p.name, p.default])) };
  const server = startServer(128 * 2 ** 20);
  server.serve({ id: 1, op: 'view', key: 'comparison', family: 'alibi', params, needs: ['comparison', 'currentLabel'] });
  const { data, error } = await server.reply(1);
  assert.equal(error, undefined, error?.message);
  assert.ok(data.comparison.length >= 10, `${data.comparison.length} curves`);
  assert.ok(data.comparison.every((c) => c.values instanceof Float32Array && c.values.length === params.compare_distance + 1));
  assert.match(data.currentLabel, /^ALiBi/);
});
