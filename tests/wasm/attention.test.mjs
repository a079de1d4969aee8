// The attention head through the wasm module: attention(request).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { errorOf, leakAfter, loadPosenc } from './load.mjs';
import { FAMILY_TYPES } from '../../web/src/describe.js';  // the core's list (describe())

const pe = await loadPosenc();
const DEFAULT_KERNELS = pe.kernelPath();
const run = (text, encoding, extra = {}) => pe.attention({ text, d_model: 16, d_head: 16, encoding, seed: 3, ...extra });

test('attention returns tokens, logits, weights, output and terms with the documented shapes', () => {
  const r = run('The dog chased the cat.', { type: 'sinusoidal' });
  assert.deepEqual(r.tokens, ['the', 'dog', 'chased', 'the', 'cat', '.']);
  assert.equal(r.n, 6);
  assert.ok(r.logits instanceof Float32Array && r.logits.length === 36);
  assert.equal(r.weights.length, 36);
  assert.equal(r.output.length, 6 * 16);
  assert.deepEqual(Object.keys(r.terms).sort(), ['carrier', 'cc', 'cp', 'pc', 'pp', 'scale']);
  assert.equal(r.terms.scale, 1 / Math.sqrt(16));  // the factor of q . k: 1 / sqrt(d_head)
});

test('weights rows sum to 1 and the causal mask hides later keys', () => {
  for (const type of FAMILY_TYPES) {
    const r = run('one two three four five', { type }, { causal: true });
    for (let i = 0; i < 5; i++) {
      let sum = 0;
      for (let j = 0; j < 5; j++) {
        sum += r.weights[i * 5 + j];
        if (j > i) {
          assert.equal(r.weights[i * 5 + j], 0, `${type} (${i}, ${j})`);
          assert.equal(r.logits[i * 5 + j], -Infinity);
        }
      }
      assert.ok(Math.abs(sum - 1) < 1e-6, `${type} row ${i} sums to ${sum}`);
    }
  }
});

test('the four terms of an absolute encoding sum to the logits within 1e-5', () => {
  const r = run('the dog chased the cat', { type: 'sinusoidal' }, { d_model: 32, d_head: 32 });
  const { cc, cp, pc, pp } = r.terms;
  r.logits.forEach((v, k) => assert.ok(Math.abs(cc[k] + cp[k] + pc[k] + pp[k] - v) < 1e-5));
});

test('NoPE: permuting tokens permutes output rows; repeated tokens have equal rows', () => {
  const a = pe.attention({ tokens: ['the', 'dog', 'chased', 'the', 'cat'], d_model: 8, d_head: 8, encoding: { type: 'none' } });
  const b = pe.attention({ tokens: ['cat', 'the', 'chased', 'dog', 'the'], d_model: 8, d_head: 8, encoding: { type: 'none' } });
  const perm = [4, 0, 2, 1, 3];
  for (let i = 0; i < 5; i++) {
    for (let c = 0; c < 8; c++) assert.ok(Math.abs(b.output[i * 8 + c] - a.output[perm[i] * 8 + c]) < 1e-6);
  }
  assert.deepEqual(a.output.subarray(0, 8), a.output.subarray(24, 32));
  assert.equal(a.terms.carrier, 'none');
});

test('RoPE, identity projections: a constant sentence has logits that depend only on i - j', () => {
  const r = run('x x x x x x', { type: 'rope' }, { projections: 'identity' });
  const at = (i, j) => r.logits[i * 6 + j];
  assert.ok(Math.abs(at(0, 2) - at(3, 5)) < 1e-5);
  assert.ok(Math.abs(at(5, 1) - at(4, 0)) < 1e-5);
  assert.equal(r.terms.carrier, 'rotary');
});

test('ALiBi: logits = content scores - slope * |i - j|', () => {
  const withBias = run('the dog chased the cat', { type: 'alibi', n_heads: 8, head: 2 });
  const content = run('the dog chased the cat', { type: 'none' });
  for (let i = 0; i < 5; i++) {
    for (let j = 0; j < 5; j++) {
      assert.ok(Math.abs(withBias.logits[i * 5 + j] - (content.logits[i * 5 + j] - Math.abs(i - j) / 8)) < 1e-6);
    }
  }
  assert.deepEqual(withBias.terms.content, content.logits);
});

test('the same request gives the native build\'s numbers, bit for bit, for every family (the C++ kernels)', (t) => {
  const dump = fileURLToPath(new URL('../../build/native/posenc_dump', import.meta.url));
  const text = 'the quick brown fox jumps over the lazy dog';
  // The C++ kernels (separate multiply and add, as natively); the fused path is checked against a float64
  // reference in kernels.test.mjs.
  pe.useKernels('simd128');
  t.after(() => pe.useKernels(DEFAULT_KERNELS));
  for (const type of FAMILY_TYPES) {
    const native = spawnSync(dump, ['attention', text, type, 'd=16', 'seed=5', 'causal=1']);
    assert.equal(native.status, 0, String(native.stderr));
    const r = pe.attention({ text, d_model: 16, d_head: 16, encoding: { type }, seed: 5, causal: true });
    const wasm = new Float32Array([...r.logits, ...r.weights, ...r.output]);
    assert.ok(Buffer.from(wasm.buffer).equals(native.stdout), `${type}: the bytes differ`);
  }
});

test('2048 tokens work; 2049 are refused with the limit in the message', () => {
  const words = Array.from({ length: 2048 }, (_, k) => `w${k % 50}`).join(' ');
  const r = pe.attention({ text: words, d_model: 8, d_head: 8, encoding: { type: 'alibi' }, causal: true });
  assert.equal(r.n, 2048);
  assert.equal(r.weights.length, 2048 * 2048);
  assert.equal(r.weights[2047 * 2048 + 2047] > 0, true);
  assert.throws(() => pe.attention({ text: `${words} extra`, d_model: 8, d_head: 8 }),
    /^RangeError: text = a text of 2049 tokens is invalid: expected at most 2048 tokens$/);
});

test('raw inputs x [n, d_model] replace the tokens', () => {
  const x = Float32Array.from({ length: 3 * 4 }, (_, k) => Math.sin(k));
  const r = pe.attention({ x, d_model: 4, d_head: 4, projections: 'identity', encoding: { type: 'none' } });
  // Identity projections: logits = x x^T / 2.
  const dot = (i, j) => [0, 1, 2, 3].reduce((s, c) => s + x[i * 4 + c] * x[j * 4 + c], 0) / 2;
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) assert.ok(Math.abs(r.logits[i * 3 + j] - dot(i, j)) < 1e-6);
  assert.throws(() => pe.attention({ x: new Float32Array(7), d_model: 4, d_head: 4 }), /^RangeError: x = a Float32Array of length 7 is invalid/);
});

test('bad requests throw naming the parameter', () => {
  const cases = [
    [() => pe.attention({ text: 'a b', d_model: 16, d_head: 8, projections: 'identity' }), /^d_head = 8 is invalid: expected d_model = 16 with identity projections$/],
    [() => pe.attention({ text: 'a b', d_model: 16, d_head: 16, encoding: { type: 'sinusoidal', d_model: 32 } }), /^encoding.d_model = 32 is invalid: expected d_model = 16/],
    [() => pe.attention({ text: '   ' }), /^text = "   " is invalid: expected at least one token/],
    [() => pe.attention({ d_model: 4 }), /missing required key "text" or "tokens"/],
    [() => pe.attention({ tokens: ['a', 2] }), /request.tokens\[1\] must be a string like the first item, not number/],
    [() => pe.attention({ text: 'a', encoding: { type: 'alibi', n_heads: 0 } }), /^n_heads = 0 is invalid/],
    [() => pe.attention({ text: 'a', temperature: 2 }), /unknown key "temperature"/],
  ];
  for (const [call, message] of cases) assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
});

test('attention calls leak neither heap nor stack', () => {
  const round = () => {
    run('the dog chased the cat', { type: 'rope' }, { causal: true });
    run('the dog chased the cat', { type: 'sinusoidal' });
    try { pe.attention({ text: 'a', d_model: 4, d_head: 2, projections: 'identity' }); } catch { /* expected */ }
  };
  assert.deepEqual(leakAfter(pe, round, 1000), { heap: 0, stack: 0, memory: 0 });
});

test('tokenIds: each token of the core tokenizer read as the FNV-1a hash of its UTF-16 code units, mod vocab', () => {
  // The 32-bit FNV-1a of a JS string's code units, written out here as the reference.
  const fnv = (word) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
    return h >>> 0;
  };
  const text = "The café's 😀 don't stop, naïve 42";
  const { tokens, ids } = pe.tokenIds(text, 16);
  assert.deepEqual(tokens, pe.embedTokens(text, 1, 0).tokens);
  assert.ok(ids instanceof Int32Array);
  assert.deepEqual(Array.from(ids), tokens.map((t) => fnv(t) % 16));
  assert.equal(fnv('a'), 0xe40c292c);  // FNV-1a's published value for "a"
  assert.equal(pe.tokenIds('a', 1000).ids[0], 0xe40c292c % 1000);
  assert.equal(errorOf(() => pe.tokenIds('a', 0)).param, 'vocab');
  assert.equal(errorOf(() => pe.tokenIds(3, 16)).param, 'text');
});
