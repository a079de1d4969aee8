// A catalogue of bad inputs for every JS API function that takes numbers or
// strings, and for the page's readers of typed text (control values, a pasted
// config.json): each bad value gets a JS Error whose .param names the argument
// and whose message names it, the value and the allowed range; the few values
// that are legal for an argument (0 for an offset, 2^31 for a seed) are listed
// and must give a finite result. (The native catalogue: tests/native/test_bad_inputs.cpp.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadPosenc } from './load.mjs';
import { parse } from '../../web/src/state.js';
import { parseConfigText } from '../../web/src/config/hf-config.js';
import { specFromConfig } from '../../web/src/config/model-config.js';

const pe = await loadPosenc();
const rope = { type: 'rope', head_dim: 8 };
const sinusoidal = { type: 'sinusoidal', d_model: 8 };
const x = new Float32Array(16).fill(1);

const BAD = ['x', null, undefined, {}, [], true, 1n, NaN, Infinity, -Infinity, -1, 0, 0.5, 1e308, 2 ** 53, 2 ** 31];
const shown = (v) => (typeof v === 'bigint' ? `${v}n` : v === undefined ? 'undefined' : JSON.stringify(v) ?? String(v));

// [function(argument), its name, the legal values among BAD]
const ARGUMENTS = [
  [(v) => pe.positionTable(sinusoidal, v), 'n', []],
  [(v) => pe.ropeInvFreq(rope, v), 'seqLen', [2 ** 31]],
  [(v) => pe.applyRope(x, v, 8, rope, 0), 'n', []],
  [(v) => pe.applyRope(x, 2, v, rope, 0), 'd', []],
  [(v) => pe.applyRope(x, 2, 8, rope, v), 'positionOffset', [0, 2 ** 31]],
  [(v) => pe.decay(rope, v, 0), 'maxDistance', [0]],
  [(v) => pe.decay(rope, 8, v), 'seed', [undefined, 0, 2 ** 53, 2 ** 31]],
  [(v) => pe.alibiSlopes(v), 'nHeads', []],
  [(v) => pe.alibiBias(v, 8, 0, false), 'n', []],
  [(v) => pe.alibiBias(4, v, 0, false), 'nHeads', []],
  [(v) => pe.alibiBias(4, 8, v, false), 'head', [0]],
  [(v) => pe.alibiBias(4, 8, 0, v), 'causal', [true]],
  [(v) => pe.t5Bucket([v], true, 32, 128), 'relativePositions', [-1, 0, 2 ** 31]],
  [(v) => pe.t5Bucket([1], v, 32, 128), 'bidirectional', [true]],
  [(v) => pe.t5Bucket([1], true, v, 128), 'numBuckets', []],
  [(v) => pe.t5Bucket([1], true, 32, v), 'maxDistance', [2 ** 31]],
  [(v) => pe.attentionBias({ type: 'alibi' }, v), 'n', []],
  [(v) => pe.positionSimilarity(sinusoidal, v, 'dot'), 'n', []],
  [(v) => pe.positionSimilarity(sinusoidal, 4, v), 'metric', []],
  [(v) => pe.embedTokens(v, 8, 0), 'text', ['x']],
  [(v) => pe.embedTokens('a b', v, 0), 'dModel', []],
  [(v) => pe.embedTokens('a b', 8, v), 'seed', [0, 2 ** 53, 2 ** 31]],
  [(v) => pe.positionTable({ ...sinusoidal, d_model: v }, 2), 'd_model', [undefined, null]],  // null: absent, as configs write it
  [(v) => pe.ropeInvFreq({ ...rope, rope_theta: v }, 2), 'rope_theta', [undefined, null, 2 ** 53, 2 ** 31]],
  [(v) => pe.attentionBias({ type: 't5', num_buckets: v }, 2), 'num_buckets', [undefined, null]],
  [(v) => pe.attention({ text: 'a b', d_model: v, d_head: 4 }), 'd_model', [null, undefined]],
];

/** No NaN or +Infinity anywhere; -Infinity only as a causal mask writes it (alibiBias with causal true). */
function finite(value) {
  const ok = (v) => Number.isFinite(v) || v === -Infinity;
  if (typeof value === 'number') return ok(value);
  if (ArrayBuffer.isView(value)) return value.every(ok);
  if (value && typeof value === 'object') return Object.values(value).every((v) => typeof v === 'string' || finite(v));
  return true;
}

test(`catalogue: ${ARGUMENTS.length} arguments x ${BAD.length} bad values each get a named Error, or are legal and finite`, () => {
  let refused = 0;
  for (const [call, name, legal] of ARGUMENTS) {
    for (const value of BAD) {
      const what = `${name} = ${shown(value)}`;
      let error = null;
      let result;
      try { result = call(value); } catch (e) { error = e; }
      if (legal.some((l) => Object.is(l, value))) {
        assert.equal(error, null, `${what}: legal, but ${error?.message}`);
        assert.ok(finite(result), `${what}: not finite`);
        continue;
      }
      assert.ok(error instanceof Error, `${what}: no Error (${error === null ? 'accepted' : typeof error})`);
      assert.equal(error.param, name, `${what}: .param ${error.param} (${error.message})`);
      assert.match(error.message, new RegExp(`(^|\\W)${name}\\b`), `${what}: message ${error.message}`);
      assert.match(error.message, /expected|accepted keys|must be|not both|invalid/, `${what}: message ${error.message}`);
      assert.equal(typeof error.allowed, 'string', `${what}: .allowed`);
      // The range said is the key's own, never a reader's wide internal one (the audit saw T5's num_buckets
      // refused with "[-1099511627776, 65536]").
      if (name !== 'relativePositions') assert.doesNotMatch(error.allowed, /-1099511627776/, `${what}: ${error.allowed}`);  // (theirs: ±2^40)
      refused += 1;
    }
  }
  assert.ok(refused > 300, `${refused} refused`);
  assert.deepEqual([...pe.alibiSlopes(4)], [0.25, 0.0625, 0.015625, 0.00390625], 'the instance still answers');
});

test('texts: empty, 100 KB, over the token limit are refused by name; emoji, RTL, control characters and NUL are tokens', () => {
  assert.equal(errorOfCall(() => pe.embedTokens('', 8, 0)).param, 'text');
  const long = errorOfCall(() => pe.attention({ text: 'w '.repeat(50000), d_model: 8, d_head: 8 }));
  assert.equal(long.param, 'text');
  assert.ok(long.message.length < 300, 'the message quotes a long text by its start and length');
  const spaces = errorOfCall(() => pe.embedTokens(' '.repeat(5e6), 8, 0));
  assert.ok(spaces.message.length < 300 && /\(500000\d characters\)/.test(spaces.message), spaces.message.slice(0, 200));
  for (const text of ['😀 🎉', 'שלום עולם', 'a\u0007b', 'a\u0000b', 'مرحبا \u202e x']) {
    const { tokens, data } = pe.embedTokens(text, 8, 0);
    assert.ok(tokens.length >= 1 && data.every(Number.isFinite), JSON.stringify(text));
  }
  assert.match(errorOfCall(() => pe.attention({ text: 'a b', d_model: 4, d_head: 4, x: new Float32Array(8) })).message, /not both/);
});

test('specs: unknown keys list the known ones, __proto__ and constructor are unknown keys, a missing type lists the types', () => {
  for (const key of ['__proto__', 'constructor', 'toString', 'bse']) {
    const spec = JSON.parse(`{"type": "sinusoidal", "${key}": 1}`);
    assert.match(errorOfCall(() => pe.positionTable(spec, 2)).message,
      new RegExp(`unknown key "${key}"; accepted keys: type, d_model, base, layout, timescales`));
  }
  assert.match(errorOfCall(() => pe.positionTable({}, 2)).message, /missing required key "type" \(one of "sinusoidal", "learned"/);
  assert.match(errorOfCall(() => pe.ropeInvFreq({ type: 'rope', head_dim: 8, rope_scaling: { rope_type: 'longrope', short_factor: [1], long_factor: [1, 2, 3, 4] } }, 2)).message,
    /short_factor = a list of 1 numbers is invalid: expected a list of rotary_dim \/ 2 = 4 numbers/);
  assert.match(errorOfCall(() => pe.attentionBias({ type: 'alibi', n_heads: 4, head: 4 }, 2)).message, /head = 4 is invalid: expected an integer in \[0, 3\]/);
  assert.equal(errorOfCall(() => pe.attentionBias({ type: 't5', num_buckets: 64, max_distance: 16 }, 2)).param, 'max_distance');
});

test('page readers: control values in decimal only; a pasted config with __proto__, constructor, numbers as text, 5 MB', () => {
  const parameters = [{ name: 'n', kind: 'int', default: 4 }, { name: 'base', kind: 'number', default: 1 }];
  for (const text of ['0x10', '', ' ', 'Infinity', '1e', '--1', '0b11']) {
    assert.ok(parse(parameters, { n: text, base: '1' }).errors.n, `n = ${JSON.stringify(text)} accepted`);
  }
  assert.deepEqual(parse(parameters, { n: '16', base: '-2.5e3' }).params, { n: 16, base: -2500 });
  assert.throws(() => specFromConfig(parseConfigText('{"model_type": "constructor", "vocab_size": 1}')), /model_type "constructor": none of its keys/);
  assert.deepEqual(specFromConfig(parseConfigText('{"__proto__": {"rope_theta": 5}, "model_type": "llama", "head_dim": 8}')).spec.rope_theta, undefined);
  assert.throws(() => specFromConfig({ model_type: 'llama', hidden_size: '4096', num_attention_heads: 32 }),
    (e) => e.param === 'config' && /hidden_size = "4096" is invalid: expected a number, not a string/.test(e.message));
  const big = JSON.stringify({ model_type: 'llama', head_dim: 64, rope_theta: 1e4, vocab: 'x'.repeat(5 * 2 ** 20) });
  const read = specFromConfig(parseConfigText(big));
  assert.equal(read.spec.head_dim, 64);
  assert.deepEqual(read.ignored, ['vocab']);
});

function errorOfCall(fn) {
  try { fn(); } catch (error) { return error; }
  assert.fail('no error thrown');
}
