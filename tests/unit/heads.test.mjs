// families/heads.js's storage of a trained head: float32 arrays as base64 of their little-endian bytes, read back
// exactly; a spec's key whatever the order of its keys. The shipped heads themselves: tests/wasm/heads.test.mjs.
import assert from 'node:assert/strict';
import test from 'node:test';
import { base64ToFloat32, canonicalJson, decodeHead, encodeHead, float32ToBase64, headNeeds } from '../../web/src/families/heads.js';

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
  const stored = JSON.parse(JSON.stringify(encodeHead(head)));
  assert.equal(typeof stored.E.f32, 'string');
  assert.deepEqual(stored.layer.encoding, head.layer.encoding);
  const back = decodeHead(stored);
  assert.deepEqual(back, head);
  assert.ok(Array.isArray(back.layer.encoding.relative_attention_bias));
});

test('a spec\'s key ignores the order of its keys; only a trained-head request reads a head', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 3 }], c: null } }), '{"a":{"c":null,"d":[1,{"x":3,"y":2}]},"b":1}');
  assert.deepEqual(headNeeds('rope', { trained_head: true }, ['attention']), ['rope']);
  assert.deepEqual(headNeeds('rope', { trained_head: true }, ['wordOrder', 'table']), ['rope']);
  assert.deepEqual(headNeeds('rope', { trained_head: false }, ['attention']), []);
  assert.deepEqual(headNeeds('rope', { trained_head: true }, ['table']), []);
});
