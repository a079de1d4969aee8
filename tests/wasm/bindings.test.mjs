// The JS layer over the embind functions (wasm/post.js, wasm/bindings.cpp): errors
// with .param, specs that throw in JS, the spec cache, and the zero-copy
// buffers of allocFloat32.
import test from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, leakAfter, loadPosenc } from './load.mjs';

const pe = await loadPosenc();
const sinusoidal = (extra = {}) => ({ type: 'sinusoidal', d_model: 8, ...extra });
const rope = (extra = {}) => ({ type: 'rope', head_dim: 8, ...extra });

test('errors carry .param: the JS argument, or the spec key', () => {
  const cases = [
    [() => pe.ropeInvFreq(rope(), 1.5), 'seqLen', 'seqLen = 1.5 is invalid: expected an integer in [1, 1099511627776]'],
    [() => pe.ropeInvFreq(rope(), '16'), 'seqLen', 'seqLen = "16" is invalid: expected an integer in [1, 1099511627776]'],
    [() => pe.positionTable(sinusoidal(), 0), 'n', 'n = 0 is invalid: expected an integer in [1, 16777216]'],
    [() => pe.positionTable(sinusoidal({ d_model: 7 }), 4), 'd_model', 'd_model = 7 is invalid: expected an even integer in [2, 16777216]'],
    [() => pe.positionTable(sinusoidal({ dmodel: 8 }), 4), 'dmodel', 'sinusoidal spec: unknown key "dmodel"; accepted keys: type, d_model, base, layout, timescales'],
    [() => pe.positionTable({ d_model: 8 }, 4), 'type', undefined],
    [() => pe.positionTable({ type: 'alibi' }, 4), 'type', undefined],
    [() => pe.positionTable(sinusoidal({ base: NaN }), 4), 'base', 'base = NaN is invalid: expected a finite number > 1 and <= 1e37'],
    [() => pe.positionTable(sinusoidal({ base: () => 1 }), 4), 'base', 'spec.base must be a number, string, boolean, list of numbers, object or null, not function'],
    [() => pe.positionTable(null, 4), 'spec', "spec must be an object such as {type: 'sinusoidal', d_model: 64}"],
    [() => pe.ropeInvFreq(rope({ rope_scaling: { rope_type: 'linear', factor: -Infinity } }), 1), 'factor', 'factor = -Infinity is invalid: expected a finite number >= 1'],
    [() => pe.ropeInvFreq(rope({ rope_scaling: { rope_type: 'longrope', short_factor: [1, 1, 1, 1], long_factor: [1, NaN, 1, 1] } }), 1),
      'long_factor', 'long_factor[1] = NaN is invalid: expected finite numbers > 0'],
    [() => pe.applyRope('abc', 1, 3, rope(), 0), 'x', 'x = "abc" is invalid: expected a Float32Array, array or allocFloat32 buffer of n * d numbers'],
    [() => pe.applyRope([1, NaN], 1, 2, rope({ head_dim: 2 }), 0), 'x', 'x[1] = NaN is invalid: expected a finite number'],
    [() => pe.applyRope([1, 1e308], 1, 2, rope({ head_dim: 2 }), 0), 'x', 'x[1] = 1e+308 is invalid: expected a finite float32 (|x| <= 3.4028234663852886e38)'],
    [() => pe.positionTable(sinusoidal({ d_model: 8n }), 4), 'd_model', 'spec.d_model must be a number, not bigint'],
    [() => pe.ropeInvFreq(rope({ rope_scaling: { rope_type: 'longrope', short_factor: [1, 2n] } }), 4), 'short_factor', 'spec.rope_scaling.short_factor[1] must be a number, not bigint'],
    [() => pe.applyRope(new Float32Array(7), 2, 4, rope({ head_dim: 4 }), 0), 'x', 'x = an array of length 7 is invalid: expected n * d = 8 numbers'],
    [() => pe.applyRope(new Float32Array(8), 1, 8, rope(), -1), 'positionOffset', 'positionOffset = -1 is invalid: expected an integer in [0, 1099511627776]'],
    [() => pe.alibiSlopes(0), 'nHeads', 'nHeads = 0 is invalid: expected an integer in [1, 4096]'],
    [() => pe.alibiBias(4, 8, 8, false), 'head', 'head = 8 is invalid: expected an integer in [0, 7]'],
    [() => pe.alibiBias(4, 8, 0, 'yes'), 'causal', 'causal = "yes" is invalid: expected true or false'],
    [() => pe.t5Bucket([1], true, 31, 128), 'numBuckets', undefined],
    [() => pe.t5Bucket([1], true, 32, 15), 'maxDistance', undefined],
    [() => pe.t5Bucket([1, 2.5], true, 32, 128), 'relativePositions', 'relativePositions[1] = 2.5 is invalid: expected an integer in [-1099511627776, 1099511627776]'],
    [() => pe.t5Bucket([1, 'a'], true, 32, 128), 'relativePositions', 'relativePositions[1] = "a" is invalid: expected an integer in [-1099511627776, 1099511627776]'],
    [() => pe.t5Bucket('abc', true, 32, 128), 'relativePositions', 'relativePositions = "abc" is invalid: expected an Int32Array or array of integers'],
    [() => pe.positionSimilarity(sinusoidal(), 4, 'l2'), 'metric', 'metric = "l2" is invalid: expected one of "dot", "cosine"'],
    [() => pe.positionSimilarity(sinusoidal(), 4, 2), 'metric', 'metric = 2 is invalid: expected one of "dot", "cosine"'],
    [() => pe.decay(rope(), 10, -1), 'seed', 'seed = -1 is invalid: expected an integer in [0, 9007199254740992]'],
    [() => pe.embedTokens(3, 8, 0), 'text', 'text = 3 is invalid: expected a string'],
    [() => pe.attention({ tokens: ['a', 2] }), 'tokens', 'request.tokens[1] must be a string like the first item, not number'],
    [() => pe.attention({ text: 'a', temperature: 2 }), 'temperature', undefined],
    [() => pe.attention({ x: 'abc', d_model: 4 }), 'x', 'x = "abc" is invalid: expected a Float32Array, array or allocFloat32 buffer of n * d_model numbers'],
  ];
  for (const [call, param, message] of cases) {
    const error = errorOf(call);
    assert.ok(error instanceof RangeError, `${error}`);
    assert.equal(error.param, param, error.message);
    if (message !== undefined) assert.equal(error.message, message);
  }
});

test('errors carry .value and .allowed beside .param, from C++ and from the JS layer alike', () => {
  const cases = [
    [() => pe.positionTable(sinusoidal({ d_model: 7 }), 4), 'd_model', '7', 'an even integer in [2, 16777216]'],
    [() => pe.positionTable(sinusoidal({ layout: 'diagonal' }), 4), 'layout', '"diagonal"', 'one of "interleaved", "concat"'],
    [() => pe.positionTable({ type: 'alibi' }, 4), 'type', '"alibi"', 'an absolute encoding (sinusoidal, learned, none)'],
    [() => pe.ropeInvFreq(rope(), 1.5), 'seqLen', '1.5', 'an integer in [1, 1099511627776]'],
    [() => pe.alibiBias(4, 8, 8, false), 'head', '8', 'an integer in [0, 7]'],
    [() => pe.applyRope([1, NaN], 1, 2, rope({ head_dim: 2 }), 0), 'x', 'NaN', 'a finite number'],
    [() => pe.positionTable(sinusoidal(), 4, {}), 'out', 'object', 'a buffer from allocFloat32(length)'],
    [() => pe.allocFloat32(-1), 'length', '-1', 'an integer in [1, 268435456]'],
  ];
  for (const [call, param, value, allowed] of cases) {
    const error = errorOf(call);
    assert.ok(error instanceof RangeError, `${error}`);
    assert.deepEqual([error.param, error.value, error.allowed], [param, value, allowed], error.message);
    assert.equal(error.message.endsWith(`= ${value} is invalid: expected ${allowed}`) || param === 'type', true, error.message);
  }
  const missing = errorOf(() => pe.positionTable({ d_model: 8 }, 4));
  assert.deepEqual([missing.param, missing.value], ['type', 'undefined']);
  assert.match(missing.allowed, /"sinusoidal".*"kerple"/);
});

test('a call with too many arguments is a TypeError naming the arity', () => {
  assert.throws(() => pe.alibiSlopes(4, 5), { name: 'TypeError', message: 'alibiSlopes takes 1 arguments, got 2' });
  assert.throws(() => pe.applyRope(new Float32Array(8), 1, 8, rope(), 0, undefined, 1),
    { name: 'TypeError', message: 'applyRope takes 6 arguments, got 7' });
});

test('spec values as JS writes them: undefined and null mean "not given", a Float32Array is a list', () => {
  const plain = pe.positionTable(sinusoidal(), 3).data;
  assert.deepEqual(pe.positionTable(sinusoidal({ base: undefined, layout: null }), 3).data, plain);
  const factors = [1, 1, 1, 10];
  const spec = (long) => rope({ max_position_embeddings: 400, original_max_position_embeddings: 100,
    rope_scaling: { type: 'longrope', short_factor: [1, 1, 1, 1], long_factor: long } });
  assert.deepEqual(pe.ropeInvFreq(spec(Float32Array.from(factors)), 200).inv_freq, pe.ropeInvFreq(spec(factors), 200).inv_freq);
  assert.deepEqual(pe.attention({ tokens: ['café', '😀'], d_model: 4, d_head: 4 }).tokens, ['café', '😀']);
});

test('a spec that throws in JS (getter, Proxy, BigInt, cycle) leaves no wasm stack or heap behind, 170000 times', () => {
  const getter = { type: 'alibi', get n_heads() { throw new Error('a getter that throws'); } };
  const proxy = new Proxy({ type: 'alibi' }, { ownKeys() { throw new Error('a trap that throws'); } });
  const cycle = { type: 'alibi' };
  cycle.self = cycle;
  for (const spec of [getter, proxy, { type: 'alibi', n_heads: 8n }, cycle]) assert.throws(() => pe.attentionBias(spec, 4));
  const stack = pe.stackSave();
  const heap = pe.heapBytesInUse();
  let thrown = 0;
  for (let i = 0; i < 170000; i++) {
    try {
      pe.attentionBias(getter, 4);
    } catch (error) {
      if (error.message === 'a getter that throws') thrown++;
    }
  }
  assert.equal(thrown, 170000);
  assert.equal(pe.stackSave(), stack);
  assert.equal(pe.heapBytesInUse(), heap);
  assert.deepEqual(Array.from(pe.alibiSlopes(4)), [1 / 4, 1 / 16, 1 / 64, 1 / 256]);
});

test('the spec cache holds 256 specs and frees the least recently used', () => {
  // Specs of one size (d_model 100 .. 998): the heap holds about the same whichever
  // 256 are cached (malloc may round a block up by a few bytes where it splits a
  // free one); 300 more kept would be some 60 KB.
  const spec = (k) => ({ type: 'sinusoidal', d_model: 100 + 2 * k });
  for (let k = 0; k < 300; k++) pe.positionFrequencies(spec(k));
  const heap = pe.heapBytesInUse();
  for (let k = 150; k < 450; k++) pe.positionFrequencies(spec(k));
  assert.ok(Math.abs(pe.heapBytesInUse() - heap) < 256, `${pe.heapBytesInUse() - heap} bytes more`);
  // A spec used again is still right after its entry was freed.
  assert.equal(pe.positionFrequencies(spec(0)).inv_freq.length, 50);
});

test('allocFloat32: a zero-filled heap buffer with a view, freed once, unusable after', () => {
  const buffer = pe.allocFloat32(16);
  assert.equal(buffer.length, 16);
  assert.equal(typeof buffer.ptr, 'number');
  assert.ok(buffer.array instanceof Float32Array);
  assert.equal(buffer.array, buffer.array, 'the same view while the heap has not grown');
  assert.deepEqual(Array.from(buffer.array), new Array(16).fill(0));
  assert.equal(buffer.array.buffer, pe.HEAPF32.buffer);
  buffer.free();
  buffer.free();  // a no-op
  assert.throws(() => buffer.array, /freed/);
  assert.throws(() => buffer.ptr, /freed/);
  assert.throws(() => pe.applyRope(buffer, 2, 8, rope(), 0), /freed/);
  for (const length of [0, 1.5, -1, '4', 2 ** 28 + 1]) {
    assert.throws(() => pe.allocFloat32(length), (e) => e instanceof RangeError && e.param === 'length');
  }
  assert.throws(() => pe.applyRope(new Float32Array(8), 1, 8, rope(), 0, new Float32Array(8)),
    (e) => e instanceof RangeError && e.param === 'out' && /allocFloat32/.test(e.message));
});

test('applyRope and positionTable with buffers: the copying API\'s bytes, written in place', () => {
  const n = 4;
  const d = 16;
  const spec = { type: 'rope', head_dim: d, rope_scaling: { rope_type: 'yarn', factor: 4 } };
  const values = Float32Array.from({ length: n * d }, (_, k) => Math.sin(k));
  const x = pe.allocFloat32(n * d);
  const out = pe.allocFloat32(n * d);
  x.array.set(values);
  const copied = pe.applyRope(values, n, d, spec, 7);
  assert.notEqual(copied.buffer, pe.HEAPF32.buffer, 'a fresh array, not a view on the heap');
  const fromBuffer = pe.applyRope(x, n, d, spec, 7);
  assert.deepEqual(fromBuffer, copied);
  const written = pe.applyRope(x, n, d, spec, 7, out);
  assert.equal(written, out.array);
  assert.ok(Buffer.from(written.buffer, written.byteOffset, written.byteLength).equals(Buffer.from(copied.buffer)));
  assert.deepEqual(x.array, values, 'x is read, not written');
  pe.applyRope(x, n, d, spec, 7, x);  // in place
  assert.deepEqual(x.array, copied);
  const wrong = pe.allocFloat32(n * d - 1);
  const error = errorOf(() => pe.applyRope(values, n, d, spec, 7, wrong));
  assert.equal(error.param, 'out');
  assert.equal(error.message, 'out = a buffer of length 63 is invalid: expected n * d = 64 floats (allocFloat32(64))');

  const sin = { type: 'sinusoidal', d_model: d };
  const table = pe.allocFloat32(n * d);
  const result = pe.positionTable(sin, n, table);
  assert.deepEqual(Object.keys(result), ['data', 'rows', 'cols']);
  assert.equal(result.data, table.array);
  assert.equal(result.rows, n);
  assert.equal(result.cols, d);
  assert.deepEqual(result.data, pe.positionTable(sin, n).data);
  assert.equal(errorOf(() => pe.positionTable(sin, n + 1, table)).param, 'out');
  assert.equal(errorOf(() => pe.positionTable(sin, n, table, 1)).name, 'TypeError');
  for (const buffer of [x, out, wrong, table]) buffer.free();
});

test('t5Bucket and attention read buffers in place, with the copying API\'s results', () => {
  const positions = [-200, -9, -1, 0, 3, 40, 500];
  const buffer = pe.allocFloat32(positions.length);
  buffer.array.set(positions);
  assert.deepEqual(pe.t5Bucket(buffer, true, 32, 128), pe.t5Bucket(positions, true, 32, 128));
  assert.deepEqual(pe.t5Bucket(Int32Array.from(positions), false, 32, 128), pe.t5Bucket(positions, false, 32, 128));
  buffer.array[1] = 0.5;
  assert.equal(errorOf(() => pe.t5Bucket(buffer, true, 32, 128)).message,
    'relativePositions[1] = 0.5 is invalid: expected an integer in [-1099511627776, 1099511627776]');
  buffer.free();

  const values = Float32Array.from({ length: 3 * 4 }, (_, k) => Math.cos(k));
  const x = pe.allocFloat32(values.length);
  x.array.set(values);
  const request = (inputs) => ({ x: inputs, d_model: 4, d_head: 4, encoding: { type: 'rope' }, causal: true });
  const fromArray = pe.attention(request(values));
  assert.deepEqual(pe.attention(request(x)), fromArray);
  assert.deepEqual(pe.attention(request(Array.from(values))), fromArray);
  x.free();
});

test('calls with buffers allocate nothing: the heap stays the same over 2000 rounds', () => {
  const n = 8;
  const d = 64;
  const spec = { type: 'rope', head_dim: d };
  const sin = { type: 'sinusoidal', d_model: d };
  const x = pe.allocFloat32(n * d);
  const out = pe.allocFloat32(n * d);
  x.array.set(Float32Array.from({ length: n * d }, (_, k) => Math.sin(k)));
  const round = () => {
    pe.applyRope(x, n, d, spec, 100, out);
    pe.positionTable(sin, n, out);
  };
  assert.deepEqual(leakAfter(pe, round, 2000), { heap: 0, stack: 0, memory: 0 });
  x.free();
  out.free();
});

test('a buffer\'s view follows the heap when it grows; its values stay', () => {
  const buffer = pe.allocFloat32(4);
  buffer.array.set([1, 2, 3, 4]);
  const before = buffer.array;
  const heapBefore = pe.HEAPF32.buffer.byteLength;
  const big = pe.allocFloat32(Math.ceil(heapBefore / 4) + 1024);  // more than the heap had: it grows
  assert.ok(pe.HEAPF32.buffer.byteLength > heapBefore);
  assert.equal(before.length, 0, 'the old view is detached');
  assert.notEqual(buffer.array, before);
  assert.deepEqual(Array.from(buffer.array), [1, 2, 3, 4]);
  big.free();
  buffer.free();
});

test('attentionForward: softmax(X Wq (X Wk)^T / sqrt(d_head)) X Wv with the caller\'s weights, arrays or buffers', () => {
  const n = 6;
  const dModel = 8;
  const dHead = 4;
  const values = (length, seed) => Float32Array.from({ length }, (_, k) => Math.sin(1.7 * k + seed));
  const x = values(n * dModel, 1);
  const wq = values(dModel * dHead, 2);
  const wk = values(dModel * dHead, 3);
  const wv = values(dModel * dHead, 4);
  const project = (w) => Array.from({ length: n * dHead }, (_, k) => {
    const i = Math.floor(k / dHead);
    const c = k % dHead;
    let s = 0;
    for (let m = 0; m < dModel; m++) s += x[i * dModel + m] * w[m * dHead + c];
    return s;
  });
  const [q, k, v] = [wq, wk, wv].map(project);
  const expected = [];
  for (let i = 0; i < n; i++) {
    const logits = Array.from({ length: i + 1 }, (_, j) => [0, 1, 2, 3].reduce((s, c) => s + q[i * dHead + c] * k[j * dHead + c], 0) / 2);
    const top = Math.max(...logits);
    const weights = logits.map((l) => Math.exp(l - top));
    const total = weights.reduce((a, b) => a + b);
    for (let c = 0; c < dHead; c++) expected.push(weights.reduce((s, w, j) => s + w * v[j * dHead + c], 0) / total);
  }
  const request = { x, wq, wk, wv, n, d_model: dModel, d_head: dHead, causal: true };
  const out = pe.attentionForward(request);
  assert.ok(out instanceof Float32Array && out.length === n * dHead);
  out.forEach((o, j) => assert.ok(Math.abs(o - expected[j]) < 1e-5, `${j}: ${o} vs ${expected[j]}`));
  const buffers = [x, wq, wk, wv].map((a) => {
    const b = pe.allocFloat32(a.length);
    b.array.set(a);
    return b;
  });
  const [bx, bq, bk, bv] = buffers;
  assert.deepEqual(pe.attentionForward({ ...request, x: bx, wq: bq, wk: bk, wv: bv }), out);
  assert.deepEqual(pe.attentionForward({ ...request, x: Array.from(x) }), out);
  for (const b of buffers) b.free();
  assert.equal(errorOf(() => pe.attentionForward({ ...request, wv: undefined })).param, 'wv');
  assert.equal(errorOf(() => pe.attentionForward({ ...request, x: x.subarray(1) })).message, 'x = an array of length 47 is invalid: expected n * d_model = 48 numbers');
  assert.equal(errorOf(() => pe.attentionForward({ ...request, n: undefined })).param, 'n');
});

test('a spec too deep or too large for the core is refused by its shape at once, before JSON.stringify walks it', () => {
  // Ten keys per level that all share one child: small in memory, 10^8 values as JSON.
  let wide = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 1]));
  for (let level = 0; level < 7; level++) wide = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, wide]));
  const deep = errorOf(() => pe.decay({ type: 'rope', junk: wide }, 10));  // not walked: its JSON would hold 10^8 values
  assert.equal(deep.param, 'junk');  // the spec's own key that holds it
  assert.match(deep.message, /^junk = an object nested more than 8 levels deep is invalid: expected a spec of at most 8 levels and 4194304 bytes of JSON/);
  // Six levels (within the depth) that are still 10^6 values x 10: refused by their count.
  let broad = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 1]));
  for (let level = 0; level < 5; level++) broad = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, broad]));
  const many = errorOf(() => pe.decay({ type: 'rope', junk: broad, more: broad, again: broad }, 10));
  assert.match(many.message, /an object of more than 2097152 values/);
  // A legal nested spec still goes through, and the instance answers.
  assert.equal(pe.ropeInvFreq({ type: 'rope', head_dim: 8, rope_parameters: { rope_type: 'default', rope_theta: 100 } }, 1).inv_freq.length, 4);
  assert.deepEqual([...pe.alibiSlopes(4)], [0.25, 0.0625, 0.015625, 0.00390625]);
});

test('wasm/posenc.d.ts declares every function of the API, and the API has every function it declares', async () => {
  const fs = await import('node:fs');
  const dts = fs.readFileSync(new URL('../../wasm/posenc.d.ts', import.meta.url), 'utf8');
  const body = dts.slice(dts.indexOf('export interface Posenc {'), dts.indexOf('\n}\n', dts.indexOf('export interface Posenc {')));
  const declared = [...body.matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]).sort();
  // The API: what wasm/post.js defines (define('name', ...) and Module['name'] = ...), each a function of the module.
  const post = fs.readFileSync(new URL('../../wasm/post.js', import.meta.url), 'utf8');
  const api = [...post.matchAll(/define\('(\w+)'|Module\['(\w+)'\] = /g)].map((m) => m[1] ?? m[2]).sort();
  for (const name of api) assert.equal(typeof pe[name], 'function', name);
  assert.deepEqual(declared, api);
});

test('errors carry .code: bad_param from C++ and from the JS layer alike', () => {
  assert.equal(errorOf(() => pe.positionTable({ type: 'sinusoidal', d_model: 7 }, 4)).code, 'bad_param');  // the core's reader
  assert.equal(errorOf(() => pe.applyRope([1, NaN], 1, 2, { type: 'rope', head_dim: 2 }, 0)).code, 'bad_param');  // the JS layer
  const both = errorOf(() => pe.ropeInvFreq({ type: 'rope', rope_scaling: { rope_type: 'linear', factor: 2 },
    rope_parameters: { rope_type: 'linear', factor: 2 } }, 1));
  assert.ok(both instanceof RangeError);
  assert.equal(both.code, 'bad_param');
});
