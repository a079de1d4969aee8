// Learned, NoPE and the attention-bias family through the wasm module.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { leakAfter, loadPosenc } from './load.mjs';

const pe = await loadPosenc();
const close = (a, b, tolerance = 1e-6) => assert.ok(Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b)), `${a} vs ${b}`);

test('alibiSlopes: 8 heads 1/2 .. 1/256; 12 heads add 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5', () => {
  assert.deepEqual(Array.from(pe.alibiSlopes(8)), [1, 2, 3, 4, 5, 6, 7, 8].map((k) => 2 ** -k));
  const twelve = pe.alibiSlopes(12);
  assert.equal(twelve.length, 12);
  assert.deepEqual(Array.from(twelve.subarray(0, 8)), [1, 2, 3, 4, 5, 6, 7, 8].map((k) => 2 ** -k));
  [0.5, 1.5, 2.5, 3.5].forEach((k, h) => close(twelve[8 + h], 2 ** -k, 1e-7));
});

test('alibiBias: -m |i - j|, symmetric; causal hides the keys after the query', () => {
  const n = 5;
  const b = pe.alibiBias(n, 8, 2, false);  // m = 1/8
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      assert.equal(b[i * n + j], -0.125 * Math.abs(i - j));
      assert.equal(b[i * n + j], b[j * n + i]);
    }
  }
  const c = pe.alibiBias(n, 8, 2, true);
  assert.equal(c[3 * n + 1], -0.25);
  assert.equal(c[1 * n + 3], -Infinity);
});

test('t5Bucket over -200..200 at the hand-computed boundaries (32 buckets, max_distance 128)', () => {
  const positions = Int32Array.from({ length: 401 }, (_, k) => k - 200);
  const both = pe.t5Bucket(positions, true, 32, 128);
  const one = pe.t5Bucket(positions, false, 32, 128);
  assert.ok(both instanceof Int32Array);
  const at = (buckets, r) => buckets[r + 200];
  // Bidirectional: exact below 8 each side; 8 + floor(ln(d/8)/ln16*8) beyond; 15 / 31 saturate.
  assert.deepEqual([0, -1, -7, -8, -11, -12, -16, -127, -128, -200].map((r) => at(both, r)), [0, 1, 7, 8, 8, 9, 10, 15, 15, 15]);
  assert.deepEqual([1, 7, 8, 12, 200].map((r) => at(both, r)), [17, 23, 24, 25, 31]);
  // Unidirectional: future keys in bucket 0; exact below 16; d = 20 -> 17; saturated at 31.
  assert.deepEqual([5, 0, -15, -16, -20, -128, -200].map((r) => at(one, r)), [0, 0, 15, 16, 17, 31, 31]);
});

test('attentionBias: each bias family, its closed form at chosen cells', () => {
  const n = 6;
  const alibi = pe.attentionBias({ type: 'alibi', n_heads: 8, head: 0 }, n);
  assert.equal(alibi[4 * n + 1], -1.5);  // slope 1/2, distance 3
  const kerple = pe.attentionBias({ type: 'kerple', variant: 'log', r1: 2, r2: 0.5 }, n);
  close(kerple[0 * n + 2], -2 * Math.log(2));
  const power = pe.attentionBias({ type: 'kerple', variant: 'power', r1: 1, r2: 1.5 }, n);
  close(power[5 * n + 1], -8);
  for (let j = 1; j < n; j++) assert.ok(kerple[j] < kerple[j - 1], 'KERPLE falls with distance');
  const t5 = pe.attentionBias({ type: 't5', seed: 2 }, n);
  assert.equal(t5[3 * n + 0], t5[5 * n + 2], 'same j - i, same bucket, same bias');
  const shaw = pe.attentionBias({ type: 'shaw', head_dim: 8, max_relative_position: 2 }, n);
  assert.equal(shaw[0 * n + 5], shaw[0 * n + 2], 'clipped past K = 2');
  const txl = pe.attentionBias({ type: 'transformer_xl', d_head: 8 }, n);
  assert.equal(txl[0 * n + 1], -Infinity, 'causal by default');
  assert.equal(txl[4 * n + 2], txl[5 * n + 3], 'depends on i - j only');
});

test('decay: the ALiBi line, T5 steps saturating, KERPLE falling', () => {
  const alibi = pe.decay({ type: 'alibi', n_heads: 4 }, 100);  // slope 2^-2
  close(alibi.bias[100], -25);
  const t5 = pe.decay({ type: 't5' }, 300);
  assert.equal(t5.bias[128], t5.bias[300]);
  const kerple = pe.decay({ type: 'kerple' }, 50);
  close(kerple.bias[50], -Math.log(51));
  const sinusoidal = pe.decay({ type: 'sinusoidal', d_model: 8 }, 3);
  close(sinusoidal.dot[3], Math.cos(3) + Math.cos(0.3) + Math.cos(0.03) + Math.cos(0.003));
});

test('learned table: the same seed gives the same bytes natively and in wasm', () => {
  const dump = fileURLToPath(new URL('../../build/native/posenc_dump', import.meta.url));
  for (const seed of [0, 12345]) {
    const native = spawnSync(dump, ['table', 'learned', 'd_model=64', 'max_position_embeddings=256', `seed=${seed}`, '256']);
    assert.equal(native.status, 0, String(native.stderr));
    const wasm = pe.positionTable({ type: 'learned', d_model: 64, max_position_embeddings: 256, seed }, 256).data;
    assert.equal(native.stdout.length, wasm.byteLength);
    assert.ok(Buffer.from(wasm.buffer).equals(native.stdout), `seed ${seed}: bytes differ`);
  }
  const a = pe.positionTable({ type: 'learned', d_model: 64, max_position_embeddings: 256, seed: 1 }, 4).data;
  const b = pe.positionTable({ type: 'learned', d_model: 64, max_position_embeddings: 256, seed: 2 }, 4).data;
  assert.notDeepEqual(a, b);
});

test('NoPE is zeros; a learned table has no row past max_position_embeddings', () => {
  assert.ok(pe.positionTable({ type: 'none', d_model: 4 }, 3).data.every((v) => v === 0));
  assert.throws(() => pe.positionTable({ type: 'learned', max_position_embeddings: 1024 }, 1025),
    /^RangeError: n = 1025 is invalid: expected positions up to max_position_embeddings - 1 = 1023: no embedding exists for position 1024 or later/);
});

test('explicit parameters (arrays or Float32Array) replace the seeded draws; a wrong length names the key', () => {
  const table = pe.positionTable({ type: 'learned', d_model: 2, max_position_embeddings: 2, weight: new Float32Array([1, 2, 3, 4]) }, 2);
  assert.deepEqual(Array.from(table.data), [1, 2, 3, 4]);
  // t5, 8 buckets x 2 heads, head 1: j - i = 1 is bucket 5, entry [5][1] = 11.
  const t5 = pe.attentionBias({ type: 't5', n_heads: 2, head: 1, num_buckets: 8, max_distance: 16,
    relative_attention_bias: Array.from({ length: 16 }, (_, k) => k) }, 2);
  assert.equal(t5[1], 11);
  // shaw, queries of ones, head_dim 1: b(i, j) = a_clip(j - i) = [1, 2, 3][clip(j - i) + 1].
  assert.deepEqual(Array.from(pe.attentionBias({ type: 'shaw', head_dim: 1, max_relative_position: 1, relative_key: [1, 2, 3] }, 3)),
    [2, 3, 3, 1, 2, 3, 1, 1, 2]);
  // transformer_xl, d_head 2, queries of ones: b(1, 0) = (1 + v) . [sin 1, cos 1].
  const xl = pe.attentionBias({ type: 'transformer_xl', d_head: 2, causal: false, r_w_bias: [0, 0], r_r_bias: [0.5, -2] }, 2);
  close(xl[2], 1.5 * Math.sin(1) - Math.cos(1));
  for (const [spec, key] of [[{ type: 't5', relative_attention_bias: [1] }, 'relative_attention_bias'],
    [{ type: 'shaw', relative_key: [1] }, 'relative_key'], [{ type: 'transformer_xl', r_r_bias: [1] }, 'r_r_bias']])
    assert.throws(() => pe.attentionBias(spec, 2), (e) => e.param === key && /expected .* numbers/.test(e.message));
  assert.throws(() => pe.positionTable({ type: 'learned', weight: [1] }, 1), { param: 'weight' });
});

test('bad bias input throws a JS Error naming the parameter', () => {
  const cases = [
    [() => pe.alibiSlopes(0), /^nHeads = 0 is invalid: expected an integer in \[1, 4096\]$/],
    [() => pe.alibiBias(4, 8, 8, false), /^head = 8 is invalid: expected an integer in \[0, 7\]$/],
    [() => pe.alibiBias(4, 8, 0, 'yes'), /^causal = "yes" is invalid: expected true or false$/],
    // t5Bucket's messages name its arguments, as .param does; a t5 spec's name its keys
    [() => pe.t5Bucket([1], true, 31, 128), /^numBuckets = 31 is invalid: expected an even integer/],
    [() => pe.t5Bucket([1], true, 32, 15), /^maxDistance = 15 is invalid: expected an integer >= numBuckets \/ 2 = 16/],
    [() => pe.attentionBias({ type: 't5', max_distance: 15 }, 4), /^max_distance = 15 is invalid: expected an integer >= num_buckets \/ 2 = 16/],
    [() => pe.t5Bucket([1, 2.5], true, 32, 128), /^relativePositions\[1\] = 2.5 is invalid/],
    [() => pe.attentionBias({ type: 'alibi', n_heads: 0 }, 4), /^n_heads = 0 is invalid/],
    [() => pe.attentionBias({ type: 'kerple', r2: -1 }, 4), /^r2 = -1 is invalid: expected a finite number > 0 and <= 1e6$/],
    [() => pe.attentionBias({ type: 'sinusoidal' }, 4), /not a bias family/],
    [() => pe.attentionBias({ type: 'alibi' }, 5000), /^n = 5000 is invalid: expected an integer in \[1, 4096\]$/],
    [() => pe.decay({ type: 'learned' }, 4), /no decay curve/],
  ];
  for (const [call, message] of cases) assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
});

test('bias calls leak neither heap nor stack', () => {
  const round = () => {
    pe.attentionBias({ type: 't5' }, 32);
    pe.t5Bucket([-3, 0, 5], true, 32, 128);
    pe.alibiBias(16, 12, 11, true);
    try { pe.alibiBias(4, 8, 9, false); } catch { /* expected */ }
  };
  assert.deepEqual(leakAfter(pe, round, 2000), { heap: 0, stack: 0, memory: 0 });
});
