// The wasm heap and stack across calls that throw in JS (getters, Proxies,
// BigInts, Symbols), calls that call the module again from inside their
// arguments, and arrays too long for the core: nothing is left behind, nothing
// is allocated before an argument has been checked, and the results of a call
// are right whatever its arguments did meanwhile (wasm/post.js reads every
// argument before anything goes in the heap).
import test from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { errorOf, leakAfter, loadPosenc } from './load.mjs';
import { createCalls } from '../../web/src/engine/calls.js';
import { CACHE_BYTES } from '../../web/src/engine/cache.js';

const pe = await loadPosenc();
const limits = pe.describe().limits;
const rope = { type: 'rope', head_dim: 8 };
const SLOPES = [0.25, 0.0625, 0.015625, 0.00390625];

/** An array of `values` whose item `index` is read through a getter returning `get()`. */
function withGetter(values, index, get) {
  const array = values.slice();
  Object.defineProperty(array, index, { get, enumerable: true });
  return array;
}

test('arrays longer than the core accepts are refused before anything is allocated', () => {
  // A result whose n * d is over the limit, though n and d each are within it: refused before its
  // storage is made (once first: the spec's parsed copy and the error reply's text are kept).
  const wide = () => errorOf(() => pe.applyRope([1, 2], 2 ** 21, 2 ** 24, rope, 0));
  assert.equal(wide().param, 'n');
  const memory = pe.HEAPU8.buffer.byteLength;
  const heap = pe.heapBytesInUse();
  const cases = [
    // Items are not even read: a BigInt at the end of a long x is not reached.
    [() => pe.t5Bucket(new Array(1e8), true, 32, 128), 'relativePositions', `an array of length 100000000`],
    [() => pe.t5Bucket(new Array(2 ** 32 - 1), true, 32, 128), 'relativePositions', `an array of length ${2 ** 32 - 1}`],
    [() => pe.applyRope(new Array(limits.max_table_elements + 1), 1, 2, rope, 0), 'x', `an array of length ${limits.max_table_elements + 1}`],
    [() => pe.applyRope(new Float32Array(limits.max_table_elements + 1), 1, 2, rope, 0), 'x', `an array of length ${limits.max_table_elements + 1}`],
    [() => pe.t5Bucket(new Int32Array(limits.max_table_elements + 1), true, 32, 128), 'relativePositions', `an array of length ${limits.max_table_elements + 1}`],
    [() => pe.attentionForward({ x: new Float32Array(8), wq: new Array(2 ** 21), wk: [], wv: [], n: 1, d_model: 8, d_head: 1 }), 'wq', 'an array of length 2097152'],
  ];
  for (const [call, param, value] of cases) {
    const error = errorOf(call);
    assert.ok(error instanceof RangeError, `${error}`);
    assert.deepEqual([error.param, error.value], [param, value], error.message);
    assert.match(error.message, new RegExp(`^${param} = ${value} is invalid: expected at most \\d+ numbers$`));
  }
  assert.match(wide().message, /^n = 2097152 is invalid: expected n \* d <= 16777216/);
  assert.equal(pe.HEAPU8.buffer.byteLength, memory, 'the heap did not grow');
  assert.equal(pe.heapBytesInUse(), heap);
});

test('a BigInt at the end of a legal-sized x is refused before the [n, d] copy is made', () => {
  const x = new Array(2 ** 20).fill(0);
  x[x.length - 1] = 1n;
  const memory = pe.HEAPU8.buffer.byteLength;
  const heap = pe.heapBytesInUse();
  const error = errorOf(() => pe.applyRope(x, 2 ** 13, 128, { type: 'rope' }, 0));
  assert.deepEqual([error.param, error.message], ['x', `x[${2 ** 20 - 1}] = 1n is invalid: expected a finite number`]);
  assert.equal(pe.HEAPU8.buffer.byteLength, memory);
  assert.equal(pe.heapBytesInUse(), heap);
});

test('an argument that calls the module while it is read: the outer call still gets its own right answer', () => {
  const x = Float32Array.from({ length: 16 }, (_, k) => Math.sin(k));
  const expected = pe.applyRope(x, 2, 8, rope, 3);
  // A getter of x's last item, and a spec getter, call the module (and grow the heap) first.
  let inner = null;
  const grow = () => {
    inner = pe.positionTable({ type: 'sinusoidal', d_model: 1024 }, 4096).rows;
    return Array.from(pe.alibiSlopes(4));
  };
  const xs = withGetter(Array.from(x), 15, () => (grow(), x[15]));
  assert.deepEqual(pe.applyRope(xs, 2, 8, rope, 3), expected);
  assert.equal(inner, 4096);
  const spec = { type: 'rope', get head_dim() { grow(); return 8; } };
  const buffer = pe.allocFloat32(16);
  buffer.array.set(x);
  assert.deepEqual(pe.applyRope(buffer, 2, 8, spec, 3), expected);
  // valueOf is never called: a number argument must be a number.
  const valueOf = { valueOf() { grow(); return 2; } };
  assert.equal(errorOf(() => pe.applyRope(x, valueOf, 8, rope, 3)).message, 'n = an object is invalid: expected an integer in [1, 16777216]');
  // A getter that frees the buffer an earlier argument named: refused by name, not read after free.
  const freeing = { type: 'rope', get head_dim() { buffer.free(); return 8; } };
  const error = errorOf(() => pe.applyRope(buffer, 2, 8, freeing, 3));
  assert.deepEqual([error.param, error.value], ['x', 'a freed buffer']);
  // A view on the heap passed as x is detached when a getter's call grows the heap.
  const other = pe.allocFloat32(16);
  const view = other.array;
  const growing = { type: 'rope', get head_dim() { pe.allocFloat32(pe.HEAPU8.length / 4 + 1024).free(); return 8; } };
  const detached = errorOf(() => pe.applyRope(view, 2, 8, growing, 3));
  assert.ok(detached instanceof RangeError);
  assert.equal(detached.param, 'x');
  other.free();
  assert.deepEqual(Array.from(pe.alibiSlopes(4)), SLOPES);
});

/** One round of mixed calls: good ones, ones the core refuses, and ones that throw in JS. */
function mixedRound() {
  const getterSpec = { type: 'alibi', get n_heads() { throw new Error('getter'); } };
  const proxySpec = new Proxy({ type: 'alibi' }, { ownKeys() { throw new Error('trap'); } });
  const proxyArray = new Proxy([1, 2, 3, 4], { get(target, key) { if (key === '2') throw new Error('trap'); return target[key]; } });
  const bigintArray = [0, 0, 0, 1n];
  const symbolArray = [0, Symbol('s')];
  const throwingX = withGetter([1, 2, 3, 4], 3, () => { throw new Error('item getter'); });
  const reentrant = withGetter([1, 2, 3, 4], 1, () => pe.alibiSlopes(4)[0]);
  const reentrantSpec = { type: 'rope', get head_dim() { return pe.alibiSlopes(2).length * 2; } };
  const calls = [
    () => pe.alibiSlopes(4),
    () => pe.applyRope([1, 2, 3, 4], 1, 4, { type: 'rope', head_dim: 4 }, 5),
    () => pe.applyRope(reentrant, 1, 4, reentrantSpec, 5),
    () => pe.applyRope(throwingX, 1, 4, { type: 'rope', head_dim: 4 }, 0),
    () => pe.applyRope(proxyArray, 1, 4, { type: 'rope', head_dim: 4 }, 0),
    () => pe.applyRope(bigintArray, 1, 4, { type: 'rope', head_dim: 4 }, 0),
    () => pe.applyRope(symbolArray, 1, 2, { type: 'rope', head_dim: 2 }, 0),
    () => pe.applyRope([1, 2, 3, 4], 1, 4, { type: 'rope', head_dim: 4 }, 1n),
    () => pe.attentionBias(getterSpec, 4),
    () => pe.attentionBias(proxySpec, 4),
    () => pe.attentionBias({ type: 'alibi', n_heads: 8n }, 4),
    () => pe.attentionBias({ type: 'alibi', n_heads: 3 }, 4),
    () => pe.t5Bucket([-3, 0, 5], true, 32, 128),
    () => pe.t5Bucket([-3, 0, 5n], true, 32, 128),
    () => pe.t5Bucket([-3, 0.5, 5], true, 32, 128),
    () => pe.positionTable({ type: 'sinusoidal', d_model: 8 }, 4),
    () => pe.positionTable({ type: 'sinusoidal', d_model: 7 }, 4),
    () => pe.positionSimilarity({ type: 'sinusoidal', d_model: 8 }, 4, Symbol('dot')),
    () => pe.embedTokens('the cat', 4, 0),
    () => pe.embedTokens('the cat', 4, -1),
    () => pe.attentionForward({ x: [1, 2], wq: [1], wk: [1], wv: proxyArray, n: 2, d_model: 1, d_head: 1 }),
    () => pe.attentionForward({ x: [1, 2], wq: [1], wk: [1], wv: [1], n: 2, d_model: 1, d_head: 1, causal: true }),
    () => pe.attention({ text: 'a b', d_model: 4, d_head: 4, x: bigintArray }),
    () => pe.ropeInvFreq(rope, 16),
    () => pe.decay(rope, 4, Symbol('seed')),
  ];
  let thrown = 0;
  for (const call of calls) {
    try {
      call();
    } catch (error) {
      assert.ok(error instanceof Error, String(error));
      thrown++;
    }
  }
  return thrown;
}

test('100,000 mixed calls (throwing getters, Proxies, BigInts, Symbols, re-entrant getters): heap and stack exactly where they were', () => {
  const rounds = Math.ceil(100000 / 25);
  let thrown = 0;
  const start = performance.now();
  const change = leakAfter(pe, () => { thrown += mixedRound(); }, rounds);
  const seconds = (performance.now() - start) / 1000;
  assert.deepEqual(change, { heap: 0, stack: 0, memory: 0 });
  assert.equal(thrown, 16 * (rounds + 50), 'every round throws the same 16 times');
  assert.deepEqual(Array.from(pe.alibiSlopes(4)), SLOPES);
  console.log(`# memory: ${rounds * 25} calls in ${seconds.toFixed(1)} s, heap +${change.heap} B, stack +${change.stack} B`);
});

test('trainers and buffers a caller drops without free() give their memory back when collected; a buffer read through its .array view is kept', async () => {
  v8.setFlagsFromString('--expose-gc');
  const collect = vm.runInNewContext('gc');
  const settle = async () => {  // a collection, then the finalizers' task
    for (let i = 0; i < 3; i++) {
      collect();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const request = { task: 'copy', encoding: { type: 'rope', head_dim: 8 }, d_model: 8, steps: 4, train_length: 8, eval_lengths: [8] };
  // Once first: the spec cache, a trainer's first allocations, the table of 20 trainer handles at once.
  const first = Array.from({ length: 20 }, () => pe.trainer(request));
  for (const trainer of first) trainer.step(1);
  for (const trainer of first) trainer.free();
  await settle();
  const heap = pe.heapBytesInUse();
  (() => {
    for (let i = 0; i < 20; i++) {
      pe.allocFloat32(2 ** 18);  // 1 MiB each, dropped
      pe.trainer(request).step(1);  // dropped mid-run
    }
  })();
  assert.ok(pe.heapBytesInUse() >= heap + 20 * 2 ** 20, 'the dropped objects still hold their memory before a collection');
  await settle();
  assert.equal(pe.heapBytesInUse(), heap, 'every dropped trainer and buffer was freed');

  // Only the view is kept: the buffer stays alive through it, so the view never reads freed memory.
  const view = (() => {
    const buffer = pe.allocFloat32(4096);
    buffer.array.fill(7);
    return buffer.array;
  })();
  await settle();
  assert.ok(pe.heapBytesInUse() >= heap + 4096 * 4, 'the buffer behind a live view is not freed');
  pe.allocFloat32(4096).array.fill(-1);  // would land on the freed bytes if they had been freed
  assert.equal(view.every((v) => v === 7), true);
});

test('parsed specs are kept within a bound in bytes: a large one not at all, a trainer\'s request no longer than the trainer', () => {
  // The audit's: 256 distinct requests, each with a 4 MB text, left 1016 MiB of heap in use once every trainer was
  // freed (each parsed text was kept for reuse). Now a spec of more than 1 MiB is parsed for its call and freed after
  // it: the heap comes back to where it was. 16 of them here (they kept 64 MiB before; a 4 MB parse takes ~0.3 s):
  // trainers on 4 MB of text, and requests the core refuses after parsing them (task copy with a text).
  const chunk = 'Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my purse. ';
  const book = chunk.repeat(Math.ceil(4e6 / chunk.length)).slice(0, 4e6);
  const words = { task: 'text', d_model: 8, train_length: 16, steps: 1, eval_lengths: [16] };
  pe.trainer({ ...words, text: book }).free();  // once first: a trainer's first allocations, the error kept
  errorOf(() => pe.trainer({ ...words, task: 'copy', text: book }));
  const heap = pe.heapBytesInUse();
  for (let i = 0; i < 4; i++) {
    const trainer = pe.trainer({ ...words, text: `${i} ${book}` });
    trainer.step(1);
    trainer.free();
  }
  for (let i = 4; i < 16; i++) assert.equal(errorOf(() => pe.trainer({ ...words, task: 'copy', text: `${i} ${book}` })).param, 'text');
  assert.ok(pe.heapBytesInUse() - heap < 2 ** 16, `heap grew by ${pe.heapBytesInUse() - heap} bytes`);
  // A trainer's request (cached: a small one) goes when the trainer is freed or finished.
  const request = { task: 'copy', encoding: { type: 'rope', head_dim: 8 }, d_model: 8, steps: 2, train_length: 8, eval_lengths: [8] };
  pe.trainer(request).free();
  const before = pe.heapBytesInUse();
  for (let seed = 0; seed < 20; seed++) pe.trainer({ ...request, seed }).free();
  for (let seed = 20; seed < 40; seed++) pe.trainer({ ...request, seed }).finish();
  assert.equal(pe.heapBytesInUse(), before);
  // Specs under 1 MiB are kept, but all of them together in at most 16 MiB (text and parsed copy): 128 of 840 KB each
  // (the parsed copies alone 36 MB) leave at most that.
  const cached = pe.heapBytesInUse();
  const pad = 'x'.repeat(280000);
  for (let i = 0; i < 128; i++) assert.equal(errorOf(() => pe.ropeInvFreq({ type: 'rope', head_dim: 8, unknown: `${pad}${i}` }, 16)).param, 'unknown');
  assert.ok(pe.heapBytesInUse() - cached <= 16 * 2 ** 20, `the cache holds ${pe.heapBytesInUse() - cached} bytes`);
});

test('the engine worker\'s memoised results count their keys and strings: pasted texts stay within CACHE_BYTES', () => {
  // A module that answers at once, so only the cache's accounting is at work: each sentence of 5M characters is a
  // 10 MB key (its result a few words). Counted as typed arrays only, eight of them (80 MB) were kept as 0 bytes.
  const module = { HEAPU8: new Uint8Array(8), embedTokens: (text) => ({ tokens: text.split(' ', 2) }) };
  const calls = createCalls(module);
  const sentence = 'word '.repeat(1e6);
  for (let i = 0; i < 8; i++) assert.deepEqual(calls.tokens(`${i} ${sentence}`), [String(i), 'word']);
  const { cachedBytes } = calls.memory();
  assert.ok(cachedBytes >= 2 * sentence.length, `the newest is kept and counted: ${cachedBytes} bytes`);
  assert.ok(cachedBytes <= CACHE_BYTES, `${cachedBytes} bytes kept, more than ${CACHE_BYTES}`);
});
