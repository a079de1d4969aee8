// Per-layer runtime maths through the wasm module: Llama 4's attention temperature
// (attentionTemperature) and Qwen-VL's M-RoPE (mropePairAxes, mropePositions), with the
// values tests/native/test_runtime.cpp writes out by hand, and their errors' .param.
import test from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, leakAfter, loadPosenc } from './load.mjs';

const pe = await loadPosenc();
const close = (a, b, tolerance = 1e-6) => assert.ok(Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b)), `${a} vs ${b}`);

test('attentionTemperature: 1, then 1 + 0.1 ln(1 + k) from p = 8192 k - 1', () => {
  const c = pe.attentionTemperature(8192, 0.1, 40000);
  assert.ok(c.positions instanceof Float64Array);
  assert.ok(c.scale instanceof Float32Array);
  assert.deepEqual(Array.from(c.positions), [0, 8191, 16383, 24575, 32767, 40000]);
  assert.equal(c.scale[0], 1);
  close(c.scale[1], 1.0693147);  // floor((8191 + 1) / 8192) = 1: 1 + 0.1 ln 2
  close(c.scale[2], 1.1098612);  // 1 + 0.1 ln 3
  close(c.scale[4], 1 + 0.1 * Math.log(5));
  assert.equal(c.sampled, false);
  // p = 8190 is still in the first step: its curve ends there at scale 1
  assert.deepEqual(Array.from(pe.attentionTemperature(8192, 0.1, 8190).scale), [1, 1]);
});

test('attentionTemperature: positions past 2^24 stay exact (Float64Array); 2^40 is sampled to at most 4096 points', () => {
  const c = pe.attentionTemperature(8192, 0.1, 2 ** 40);
  assert.equal(c.sampled, true);
  assert.ok(c.positions.length <= 4096 && c.positions.length > 1000);
  assert.equal(c.positions[0], 0);
  assert.equal(c.positions[c.positions.length - 1], 2 ** 40);
  for (let i = 1; i < c.positions.length - 1; i++) {
    const p = c.positions[i];
    assert.equal((p + 1) % 8192, 0, `step start ${p}`);
    close(c.scale[i], 1 + 0.1 * Math.log1p((p + 1) / 8192));
  }
});

test('attentionTemperature: errors name floor_scale, attn_scale, max_position', () => {
  for (const f of [0, -1, 0.5, NaN, Infinity, '8192']) assert.equal(errorOf(() => pe.attentionTemperature(f, 0.1, 10)).param, 'floor_scale', String(f));
  for (const a of [NaN, Infinity, 2e6, undefined]) assert.equal(errorOf(() => pe.attentionTemperature(8192, a, 10)).param, 'attn_scale', String(a));
  for (const m of [0, 1.5, -1, 2 ** 40 + 1, NaN]) assert.equal(errorOf(() => pe.attentionTemperature(8192, 0.1, m)).param, 'max_position', String(m));
  const error = errorOf(() => pe.attentionTemperature(0, 0.1, 10));
  assert.ok(error instanceof RangeError);
  assert.equal(error.code, 'bad_param');
});

test('mropePairAxes: [16, 24, 24] sectioned is 16 t, 24 h, 24 w in order', () => {
  const axes = pe.mropePairAxes([16, 24, 24], false);
  assert.ok(axes instanceof Int32Array);
  assert.deepEqual(Array.from(axes), [...Array(16).fill(0), ...Array(24).fill(1), ...Array(24).fill(2)]);
  assert.deepEqual(Array.from(pe.mropePairAxes(Int32Array.of(16, 24, 24), false)), Array.from(axes));
});

test('mropePairAxes: [24, 20, 20] interleaved is t h w repeated over pairs 0..59, then t t t t', () => {
  const axes = Array.from(pe.mropePairAxes([24, 20, 20], true));
  assert.deepEqual(axes, [...Array.from({ length: 60 }, (_, i) => i % 3), 0, 0, 0, 0]);
});

test('mropePositions: 2 text + a 2 x 3 image + 2 text, as get_rope_index', () => {
  const p = pe.mropePositions(2, 2, 3, 2);
  for (const key of ['t', 'h', 'w', 'kind']) assert.ok(p[key] instanceof Int32Array, key);
  assert.deepEqual(Array.from(p.t), [0, 1, 2, 2, 2, 2, 2, 2, 5, 6]);
  assert.deepEqual(Array.from(p.h), [0, 1, 2, 2, 2, 3, 3, 3, 5, 6]);
  assert.deepEqual(Array.from(p.w), [0, 1, 2, 3, 4, 2, 3, 4, 5, 6]);
  assert.deepEqual(Array.from(p.kind), [0, 0, 1, 1, 1, 1, 1, 1, 0, 0]);
});

test('mropePairAxes, mropePositions: errors name their argument', () => {
  const cases = [
    [() => pe.mropePairAxes([16, 24], false), 'sections'],
    [() => pe.mropePairAxes([16, 24, 24, 1], false), 'sections'],
    [() => pe.mropePairAxes([16, -1, 24], true), 'sections'],
    [() => pe.mropePairAxes([16, 2.5, 24], true), 'sections'],
    [() => pe.mropePairAxes([0, 0, 0], false), 'sections'],
    [() => pe.mropePairAxes([4096, 1, 0], false), 'sections'],
    [() => pe.mropePairAxes('16,24,24', false), 'sections'],
    [() => pe.mropePairAxes([16, 24, 24], 1), 'interleaved'],
    [() => pe.mropePositions(-1, 2, 2, 0), 'textBefore'],
    [() => pe.mropePositions(257, 2, 2, 0), 'textBefore'],
    [() => pe.mropePositions(0, 0, 2, 0), 'gridH'],
    [() => pe.mropePositions(0, 2, 65, 0), 'gridW'],
    [() => pe.mropePositions(0, 2, 2, 1.5), 'textAfter'],
  ];
  for (const [call, param] of cases) assert.equal(errorOf(call).param, param, call.toString());
});

test('the runtime calls leak nothing, failing or not', () => {
  const round = () => {
    pe.attentionTemperature(8192, 0.1, 100000);
    pe.mropePairAxes([24, 20, 20], true);
    pe.mropePositions(3, 4, 5, 6);
    errorOf(() => pe.attentionTemperature(0, 0.1, 10));
    errorOf(() => pe.mropePairAxes([1, 2], false));
    errorOf(() => pe.mropePositions(0, 0, 1, 0));
  };
  const { heap, stack } = leakAfter(pe, round, 200);
  assert.equal(heap, 0);
  assert.equal(stack, 0);
});
