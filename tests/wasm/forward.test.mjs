// attentionForward(request): one head with the caller's own weights, against a
// float64 reference written here from the definition (Vaswani et al. 2017, eq. 1).
import test from 'node:test';
import assert from 'node:assert/strict';
import { leakAfter, loadPosenc, maxError } from './load.mjs';
import { seededRandom } from '../../web/src/lib/random.js';
import { fireBias } from '../reference/fire.mjs';

const pe = await loadPosenc();

/** Seeded N(0, s^2) draws, as a Float32Array. */
function normals(length, seed, s = 1) {
  const random = seededRandom(seed);
  return Float32Array.from({ length }, () => s * random.normal());
}

/** X W for x [n, k] and w [k, m], in float64. */
function matmul(x, w, n, k, m) {
  const out = new Float64Array(n * m);
  for (let i = 0; i < n; i++) for (let p = 0; p < k; p++) for (let j = 0; j < m; j++) out[i * m + j] += x[i * k + p] * w[p * m + j];
  return out;
}

/** RoPE, half layout (rotate_half), inv_freq = 10000^(-2i/d), positions offset.., in place on [n, d]. */
function rotateHalf(x, n, d, offset) {
  const half = d / 2;
  for (let r = 0; r < n; r++) {
    for (let i = 0; i < half; i++) {
      const t = (offset + r) * 10000 ** (-2 * i / d);
      const a = x[r * d + i], b = x[r * d + half + i];
      x[r * d + i] = a * Math.cos(t) - b * Math.sin(t);
      x[r * d + half + i] = a * Math.sin(t) + b * Math.cos(t);
    }
  }
}

/** softmax(Q K^T / sqrt(d) + bias(i, j)) V with keys after the query hidden when causal, in float64. */
function reference({ x, wq, wk, wv, n, d_model: dm, d_head: d, causal }, { rope = false, offset = 0, bias = () => 0 } = {}) {
  const q = matmul(x, wq, n, dm, d), k = matmul(x, wk, n, dm, d), v = matmul(x, wv, n, dm, d);
  if (rope) { rotateHalf(q, n, d, offset); rotateHalf(k, n, d, offset); }
  const out = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    const s = [];
    for (let j = 0; j < (causal ? i + 1 : n); j++) {
      let dot = 0;
      for (let c = 0; c < d; c++) dot += q[i * d + c] * k[j * d + c];
      s.push(dot / Math.sqrt(d) + bias(i, j));
    }
    const max = Math.max(...s);
    const e = s.map((z) => Math.exp(z - max));
    const sum = e.reduce((a, b) => a + b, 0);
    e.forEach((w, j) => { for (let c = 0; c < d; c++) out[i * d + c] += (w / sum) * v[j * d + c]; });
  }
  return out;
}

function request(n, dm, d, causal, seed = 1) {
  return { x: normals(n * dm, seed), wq: normals(dm * d, seed + 1, 1 / Math.sqrt(dm)), wk: normals(dm * d, seed + 2, 1 / Math.sqrt(dm)),
    wv: normals(dm * d, seed + 3, 1 / Math.sqrt(dm)), n, d_model: dm, d_head: d, causal };
}

test('attentionForward equals the float64 definition, causal or not, at sizes around the block edges', () => {
  for (const n of [1, 7, 32, 65, 300]) {
    for (const causal of [false, true]) {
      const r = request(n, 24, 8, causal, n);
      const out = pe.attentionForward(r);
      assert.ok(out instanceof Float32Array && out.length === n * 8);
      assert.ok(maxError(out, reference(r)) < 2e-5, `n ${n} causal ${causal}`);
    }
  }
});

test('rotary and bias encodings act where the head puts them: RoPE on q and k, ALiBi on the logits', () => {
  const r = request(50, 16, 16, true, 9);
  const rope = pe.attentionForward({ ...r, encoding: { type: 'rope' }, position_offset: 1000 });
  assert.ok(maxError(rope, reference(r, { rope: true, offset: 1000 })) < 2e-5);
  // ALiBi, 8 heads, head 0: slope 1/2 (Press et al. 2022, section 3)
  const alibi = pe.attentionForward({ ...r, causal: false, encoding: { type: 'alibi', n_heads: 8, head: 0 } });
  assert.ok(maxError(alibi, reference({ ...r, causal: false }, { bias: (i, j) => -0.5 * Math.abs(i - j) })) < 2e-5);
  // a bias family's own causal key masks too
  const masked = pe.attentionForward({ ...r, causal: false, encoding: { type: 'alibi', n_heads: 8, causal: true } });
  assert.ok(maxError(masked, reference(r, { bias: (i, j) => -0.5 * Math.abs(i - j) })) < 2e-5);
});

test('FIRE acts on the logits with b(i, j) of its definition, rows below and past L (no n x n kept)', () => {
  // Li et al. 2023: b(i, j) = mlp(psi(i - j) / psi(max(i, L))), here L = 24 so rows 25.. have their own normaliser.
  const fire = { type: 'fire', n_heads: 1, mlp_width: 2, init_L: 24, linear1_weight: [1, -1], linear1_bias: [0, 0.5],
    linear2_weight: [2, 3], linear2_bias: [0.25] };
  const r = request(90, 16, 16, true, 11);
  const out = pe.attentionForward({ ...r, encoding: fire });
  assert.ok(maxError(out, reference(r, { bias: (i, j) => fireBias(fire, i, j) })) < 2e-5);
});

test('8192 tokens: the first row of a causal head is v_0, every output finite', () => {
  const n = 8192;
  const r = request(n, 8, 8, true, 3);
  const out = pe.attentionForward(r);
  const v0 = matmul(r.x.subarray(0, 8), r.wv, 1, 8, 8);
  for (let c = 0; c < 8; c++) assert.ok(Math.abs(out[c] - v0[c]) < 1e-5);
  assert.ok(out.every(Number.isFinite));
});

test('bad shapes and encodings are refused with the parameter named', () => {
  const r = request(4, 8, 8, false);
  const bad = [
    [{ ...r, n: 8193 }, 'n', /n = 8193 is invalid: expected an integer in \[1, 8192\]/],
    [{ ...r, d_head: 257 }, 'd_head', /d_head = 257 is invalid: expected an integer in \[1, 256\]/],
    [{ ...r, x: new Float32Array(31) }, 'x', /x = an array of length 31 is invalid: expected n \* d_model = 32 numbers/],
    [{ ...r, wk: new Float32Array(63) }, 'wk', /wk = an array of length 63 is invalid: expected d_model \* d_head = 64 numbers/],
    [{ ...r, encoding: { type: 'sinusoidal' } }, 'encoding.type', /add positionTable\(spec, n\)\.data to x/],
    [{ ...r, encoding: { type: 'rope', head_dim: 16 } }, 'encoding.head_dim', /encoding.head_dim = 16 is invalid: expected d_head = 8/],
  ];
  for (const [req, param, message] of bad) {
    assert.throws(() => pe.attentionForward(req), (e) => e instanceof RangeError && message.test(e.message) && e.param === param,
      `${param}`);
  }
  const { wv, ...missing } = r;
  assert.throws(() => pe.attentionForward(missing), /wv/);
});

test('zero-copy: handles in the wasm heap give the same output, written into out', () => {
  const r = request(100, 16, 8, true, 5);
  const expected = pe.attentionForward(r);
  const handles = {};
  for (const key of ['x', 'wq', 'wk', 'wv']) {
    handles[key] = pe.allocFloat32(r[key].length);
    handles[key].array.set(r[key]);
  }
  const out = pe.allocFloat32(100 * 8);
  const result = pe.attentionForward({ ...r, ...handles, out });
  assert.deepEqual(Array.from(result), Array.from(expected));
  assert.throws(() => pe.attentionForward({ ...r, out: pe.allocFloat32(3) }), (e) => e.param === 'out');
  assert.deepEqual(Array.from(out.array), Array.from(expected));
  assert.deepEqual(leakAfter(pe, () => pe.attentionForward({ ...r, ...handles, out }), 200), { heap: 0, stack: 0, memory: 0 });
  for (const h of [...Object.values(handles), out]) h.free();
});

test('attentionForward calls leak neither heap nor stack, good or bad', () => {
  const r = request(40, 8, 8, false);
  const round = () => {
    pe.attentionForward(r);
    pe.attentionForward({ ...r, encoding: { type: 't5' }, causal: true });
    try { pe.attentionForward({ ...r, d_head: 0 }); } catch { /* refused */ }
    try { pe.attentionForward({ ...r, encoding: { type: 'learned' } }); } catch { /* refused */ }
  };
  assert.deepEqual(leakAfter(pe, round, 300), { heap: 0, stack: 0, memory: 0 });
});
