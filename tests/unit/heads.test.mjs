// lib/base64-arrays.js, how the build ships the engine's results (families/heads.js's trained heads, shipped-fields.js):
// typed arrays as base64 of their little-endian bytes, read back exactly; families/heads.js's key of a spec whatever the
// order of its keys. The shipped heads themselves: tests/wasm/heads.test.mjs.
import assert from 'node:assert/strict';
import test from 'node:test';
import { canonicalJson, headNeeds } from '../../web/src/families/heads.js';
import { base64ToFloat32, decodeArrays, encodeArrays, float32ToBase64 } from '../../web/src/lib/base64-arrays.js';

test('float32 arrays round-trip through base64 exactly, specials included, in little-endian byte order', () => {
  const values = Float32Array.from([0, -0, 1, -1.5, Math.fround(Math.PI), 3.4028234663852886e38, -3.4028234663852886e38,
    1.401298464324817e-45, 1.1754942106924411e-38, Infinity, -Infinity, Math.fround(1e-20)]);
  const back = base64ToFloat32(float32ToBase64(values));
  assert.ok(back instanceof Float32Array);
  assert.deepEqual(back, values);
  assert.ok(Object.is(back[1], -0));
  // 1.0f is 0x3f800000: bytes 00 00 80 3f, little-endian.
  assert.equal(float32ToBase64([1]), Buffer.from([0, 0, 0x80, 0x3f]).toString('base64'));
  // A long array (past one String.fromCharCode chunk of 32768 bytes).
  const long = Float32Array.from({ length: 20000 }, (_, i) => Math.fround(Math.sin(i) * 1e3));
  assert.deepEqual(base64ToFloat32(float32ToBase64(long)), long);
});

test('a head encodes to JSON and decodes to the same values: its typed arrays as base64, its encoding as it is', () => {
  const head = { vocab: 16, E: Float32Array.from([0.5, -2]), accuracy: 0.96875,
    layer: { Wq: Float32Array.from([1, 2, 3]), encoding: { type: 't5', relative_attention_bias: [0.1, -3], pos_att_type: ['p2c'],
      causal: true, seeds: [] } } };
  const stored = JSON.parse(JSON.stringify(encodeArrays(head)));
  assert.equal(typeof stored.E.f32, 'string');
  assert.deepEqual(stored.layer.encoding, head.layer.encoding);
  const back = decodeArrays(stored);
  assert.deepEqual(back, head);
  assert.ok(Array.isArray(back.layer.encoding.relative_attention_bias));
});

test('fields encode with each typed array\'s own kind, inside arrays too, and decode to the same values', () => {
  const fields = { maps: [{ label: 'a', attention: { weights: Float32Array.from([0.25, 0.75]), ids: Int32Array.from([-3, 2 ** 31 - 1]),
    tokens: ['the', 'dog'], n: 2 } }], spectra: [{ inv_freq: Float64Array.from([1, 1e-300]) }, { inv_freq: null }],
  mask: Uint8Array.from([0, 255]), counts: Uint32Array.from([2 ** 32 - 1]) };
  const stored = JSON.parse(JSON.stringify(encodeArrays(fields)));
  assert.deepEqual(Object.keys(stored.maps[0].attention.ids), ['i32']);
  // -3 as int32 is 0xfffffffd: bytes fd ff ff ff, little-endian.
  assert.deepEqual([...Buffer.from(stored.maps[0].attention.ids.i32, 'base64').subarray(0, 4)], [0xfd, 0xff, 0xff, 0xff]);
  const back = decodeArrays(stored);
  assert.deepEqual(back, fields);
  assert.ok(back.spectra[0].inv_freq instanceof Float64Array && back.counts instanceof Uint32Array && back.mask instanceof Uint8Array);
  assert.throws(() => encodeArrays({ big: new BigInt64Array(1) }), /BigInt64Array cannot ship: expected one of Float32Array/);
});

test('a spec\'s key ignores the order of its keys; only a trained-head request reads a head', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 3 }], c: null } }), '{"a":{"c":null,"d":[1,{"x":3,"y":2}]},"b":1}');
  assert.deepEqual(headNeeds('rope', { trained_head: true }, ['attention']), ['rope']);
  assert.deepEqual(headNeeds('rope', { trained_head: true }, ['wordOrder', 'table']), ['rope']);
  assert.deepEqual(headNeeds('rope', { trained_head: false }, ['attention']), []);
  assert.deepEqual(headNeeds('rope', { trained_head: true }, ['table']), []);
});
