// The sinusoidal encoding through the wasm module's JS API (DESIGN.md contract).
import test from 'node:test';
import assert from 'node:assert/strict';
import { leakAfter, loadPosenc } from './load.mjs';

const pe = await loadPosenc();
const sinusoidal = (extra = {}) => ({ type: 'sinusoidal', d_model: 8, ...extra });

test('version() names the build and reports SIMD on', () => {
  assert.match(pe.version(), /^posenc \d+\.\d+\.\d+ \(wasm, SIMD on\)$/);
});

test('positionTable returns {data: Float32Array, rows, cols} row-major', () => {
  const t = pe.positionTable(sinusoidal(), 4);
  assert.ok(t.data instanceof Float32Array);
  assert.equal(t.rows, 4);
  assert.equal(t.cols, 8);
  assert.equal(t.data.length, 32);
});

test('PE(1) for d_model = 8 is [sin 1, cos 1, sin 0.1, cos 0.1, ..., cos 0.001]', () => {
  const { data } = pe.positionTable(sinusoidal(), 4);
  const expected = [Math.sin(1), Math.cos(1), Math.sin(0.1), Math.cos(0.1),
    Math.sin(0.01), Math.cos(0.01), Math.sin(0.001), Math.cos(0.001)];
  const row1 = Array.from(data.subarray(8, 16));
  for (let c = 0; c < 8; c++) assert.ok(Math.abs(row1[c] - expected[c]) < 1e-7, `column ${c}: ${row1[c]} vs ${expected[c]}`);
  // PE(0) = [0, 1, 0, 1, ...]
  assert.deepEqual(Array.from(data.subarray(0, 8)), [0, 1, 0, 1, 0, 1, 0, 1]);
  // PE(3), pair 2 (omega = 0.01): sin(0.03), cos(0.03) in columns 4, 5.
  assert.ok(Math.abs(data[3 * 8 + 4] - Math.sin(0.03)) < 1e-7);
  assert.ok(Math.abs(data[3 * 8 + 5] - Math.cos(0.03)) < 1e-7);
});

test('concat layout with tensor2tensor timescales puts [sines | cosines] at base^(-i/(d/2-1))', () => {
  const { data } = pe.positionTable(sinusoidal({ layout: 'concat', timescales: 'tensor2tensor', base: 1000 }), 3);
  // d/2 - 1 = 3, so omega = 1, 0.1, 0.01, 0.001; row 2 = position 2.
  const omega = [1, 0.1, 0.01, 0.001];
  for (let i = 0; i < 4; i++) {
    assert.ok(Math.abs(data[16 + i] - Math.sin(2 * omega[i])) < 1e-7);
    assert.ok(Math.abs(data[16 + 4 + i] - Math.cos(2 * omega[i])) < 1e-7);
  }
});

test('positionFrequencies gives inv_freq and the wavelength 2*pi/inv_freq in tokens', () => {
  const { inv_freq, wavelength } = pe.positionFrequencies(sinusoidal());
  assert.ok(inv_freq instanceof Float32Array && wavelength instanceof Float32Array);
  assert.deepEqual(Array.from(inv_freq), [1, 0.1, 0.01, 0.001].map(Math.fround));
  assert.deepEqual(Array.from(wavelength), [1, 10, 100, 1000].map((x) => Math.fround(2 * Math.PI * x)));
});

test('positionFrequencies names the columns of each pair in both layouts', () => {
  const inter = pe.positionFrequencies(sinusoidal());
  assert.deepEqual(Array.from(inter.sin_column), [0, 2, 4, 6]);
  assert.deepEqual(Array.from(inter.cos_column), [1, 3, 5, 7]);
  const concat = pe.positionFrequencies(sinusoidal({ layout: 'concat' }));
  assert.ok(concat.sin_column instanceof Int32Array);
  assert.deepEqual(Array.from(concat.sin_column), [0, 1, 2, 3]);
  assert.deepEqual(Array.from(concat.cos_column), [4, 5, 6, 7]);
});

test('each result is a fresh array that later calls do not overwrite', () => {
  const a = pe.positionTable(sinusoidal(), 4).data;
  const copy = Float32Array.from(a);
  pe.positionTable(sinusoidal({ d_model: 1024 }), 4096);  // grows the heap
  pe.positionTable(sinusoidal({ base: 3 }), 4);
  assert.deepEqual(a, copy);
});

test('bad input throws a JS Error whose message names the parameter, value and range', () => {
  const cases = [
    [() => pe.positionTable(sinusoidal({ d_model: 7 }), 4), /^d_model = 7 is invalid: expected an even integer in \[2, 16777216\]$/],
    [() => pe.positionTable(sinusoidal({ base: 1 }), 4), /^base = 1 is invalid: expected a finite number > 1 and <= 1e37$/],
    [() => pe.positionTable(sinusoidal({ base: NaN }), 4), /base = NaN/],
    [() => pe.positionTable(sinusoidal({ layout: 'pairs' }), 4), /layout = "pairs" is invalid: expected one of "interleaved", "concat"/],
    [() => pe.positionTable(sinusoidal({ d_model: '8' }), 4), /d_model = "8" is invalid/],
    [() => pe.positionTable(sinusoidal({ dmodel: 8 }), 4), /unknown key "dmodel"; accepted keys: type, d_model, base, layout, timescales/],
    [() => pe.positionTable({ type: 'sinusiodal' }, 4), /type = "sinusiodal" is invalid: expected one of "sinusoidal"/],
    [() => pe.positionTable({ d_model: 8 }, 4), /missing required key "type"/],
    [() => pe.positionTable(sinusoidal(), 0), /^n = 0 is invalid: expected an integer in \[1, 16777216\]$/],
    [() => pe.positionTable(sinusoidal(), 2.5), /n = 2.5/],
    [() => pe.positionTable(sinusoidal(), '4'), /n = "4" is invalid/],
    [() => pe.positionTable(sinusoidal({ d_model: 1024 }), 16385), /n = 16385 is invalid: expected n \* d_model <= 16777216/],
    [() => pe.positionTable(null, 4), /spec must be an object/],
    [() => pe.positionTable(sinusoidal({ base: () => 1 }), 4), /spec.base must be a number, string, boolean, list of numbers, object or null, not function/],
  ];
  for (const [call, message] of cases) {
    assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
  }
  assert.throws(() => pe.positionTable(sinusoidal({ d_model: 7 }), 4), RangeError);
});

test('the module keeps working after errors (nothing aborts the instance)', () => {
  for (let i = 0; i < 100; i++) assert.throws(() => pe.positionTable(sinusoidal({ d_model: 3 }), 4));
  assert.equal(pe.positionTable(sinusoidal(), 2).data[9], Math.fround(Math.cos(1)));
});

test('10,000 calls, good and bad, leak neither wasm heap nor stack', () => {
  const spec = sinusoidal({ d_model: 64 });
  const warm = () => {
    pe.positionTable(spec, 64);
    pe.positionFrequencies(spec);
    try { pe.positionTable(sinusoidal({ d_model: 5, dmodel: 1 }), 64); } catch { /* expected */ }
  };
  assert.deepEqual(leakAfter(pe, warm, 10000), { heap: 0, stack: 0, memory: 0 });
});
